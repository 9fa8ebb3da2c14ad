package testkit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// binary is the agui-mock binary a test process builds once and its tests share.
var binary struct {
	sync.Mutex
	dir, path string
	err       error
}

// Binary returns the path of the agui-mock binary built from this tree: the first test
// of a process that asks for it builds it, once, and the later ones run the same file.
// A package whose tests call it calls RemoveBinary when they have all run (TestMain).
func Binary(t testing.TB) string {
	t.Helper()
	binary.Lock()
	defer binary.Unlock()
	if binary.path == "" && binary.err == nil {
		binary.path, binary.err = build()
	}
	if binary.err != nil {
		t.Fatal(binary.err)
	}
	return binary.path
}

// build builds the module's main package into a new temporary directory.
func build() (string, error) {
	dir, err := os.MkdirTemp("", "agui-mock-test-")
	if err != nil {
		return "", err
	}
	binary.dir = dir
	path := filepath.Join(dir, "agui-mock")
	if out, err := exec.Command("go", "build", "-o", path, "github.com/agui-mock/agui-mock").CombinedOutput(); err != nil {
		return "", fmt.Errorf("building agui-mock: %v\n%s", err, out)
	}
	return path, nil
}

// RemoveBinary deletes the binary Binary built, if it built one.
func RemoveBinary() {
	binary.Lock()
	defer binary.Unlock()
	if binary.dir != "" {
		_ = os.RemoveAll(binary.dir)
	}
	binary.dir, binary.path, binary.err = "", "", nil
}
