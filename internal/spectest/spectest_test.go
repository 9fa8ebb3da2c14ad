package spectest

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// recordingTB notes how a test was ended instead of ending it.
type recordingTB struct {
	testing.TB
	fatal, skip string
}

func (r *recordingTB) Helper()                           {}
func (r *recordingTB) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }
func (r *recordingTB) Skipf(format string, args ...any)  { r.skip = fmt.Sprintf(format, args...) }

func TestFindNamesWhatIsMissingAndTheVariable(t *testing.T) {
	_, err := find(filepath.Join(t.TempDir(), "nowhere"))
	if err == nil {
		t.Fatal("found spec material in an empty directory")
	}
	for _, want := range []string{"AG-UI spec material", "nowhere", "AGUI_SPEC_DIR"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
}

func TestAbsentSkipsOutsideCIAndFailsInCI(t *testing.T) {
	err := errors.New("AG-UI spec material not found")
	var local recordingTB
	absent(&local, false, err)
	if local.fatal != "" || !strings.HasPrefix(local.skip, "SKIPPED: AG-UI spec material") {
		t.Errorf("outside CI: skip %q, fatal %q; want a loud skip", local.skip, local.fatal)
	}
	var ci recordingTB
	absent(&ci, true, err)
	if ci.skip != "" || !strings.Contains(ci.fatal, "CI is set") {
		t.Errorf("in CI: skip %q, fatal %q; want a failure", ci.skip, ci.fatal)
	}
}
