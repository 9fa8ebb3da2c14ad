// Package watcher reports when the scenario files under a set of directories change.
// File-system events are only hints: after a burst of them settles, the tree is
// fingerprinted, and a change is reported only if what a loader would read differs.
// A polling mode serves file systems that deliver no events.
package watcher

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/agui-mock/agui-mock/internal/filestamp"
	"github.com/fsnotify/fsnotify"
)

// Modes of watching.
const (
	// ModeAuto uses file-system events plus a slow safety poll, for events that never
	// come (a recreated root, an overflowing queue).
	ModeAuto = "auto"
	// ModePoll only polls: for Docker Desktop bind mounts and network file systems.
	ModePoll = "poll"
	// ModeOff loads once.
	ModeOff = "off"
)

// Config says what to watch and how.
type Config struct {
	Roots        []string
	Mode         string
	Debounce     time.Duration // quiet time after the last event before a rescan
	PollInterval time.Duration // rescan period in poll mode; the safety poll in auto mode
	Include      func(name string) bool
	Logger       *slog.Logger
}

// Watcher watches a set of directories.
type Watcher struct {
	cfg    Config
	last   string
	sums   *fingerprinter    // what the last rescans read of each file
	events *fsnotify.Watcher // nil when polling
}

// ErrNewerChange is the cause of the context of a call of Run's onChange that a newer
// change abandoned.
var ErrNewerChange = errors.New("a newer change came")

// New starts watching at once and fingerprints the tree, so that whatever changes after
// New returns — even before Run — is reported. Load the files after calling New.
func New(cfg Config) (*Watcher, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	w := &Watcher{cfg: cfg, sums: newFingerprinter()}
	switch cfg.Mode {
	case ModeOff, ModePoll:
	case ModeAuto:
		fw, err := fsnotify.NewWatcher()
		if err != nil {
			return nil, fmt.Errorf("watching %s: %w", strings.Join(cfg.Roots, ", "), err)
		}
		addTrees(fw, cfg.Roots, cfg.Logger)
		w.events = fw
	default:
		return nil, fmt.Errorf("unknown watch mode %q (auto, poll or off)", cfg.Mode)
	}
	w.last = w.sums.of(cfg.Roots, cfg.Include)
	return w, nil
}

// Close stops watching; Run does it when it returns.
func (w *Watcher) Close() {
	if w.events != nil {
		_ = w.events.Close()
	}
}

// Run calls onChange, one call at a time, whenever the watched files change, until ctx
// is done. A call under way when the files change again is abandoned: its context is
// cancelled with the cause ErrNewerChange, and the next call starts once it returns.
// Run returns once the last call has.
func (w *Watcher) Run(ctx context.Context, onChange func(context.Context)) {
	calls := &latest{}
	defer calls.stop()
	rescan := func() {
		fp := w.sums.of(w.cfg.Roots, w.cfg.Include)
		if fp != w.last {
			w.last = fp
			calls.start(ctx, onChange)
		}
	}
	switch {
	case w.cfg.Mode == ModeOff:
		<-ctx.Done()
	case w.events == nil:
		loop(ctx, nil, nil, w.cfg, rescan)
	default:
		defer w.Close()
		hints := make(chan struct{}, 1)
		errs := make(chan error)
		go forward(ctx, w.events, hints, errs, w.cfg.Logger)
		loop(ctx, hints, errs, w.cfg, func() {
			addTrees(w.events, w.cfg.Roots, w.cfg.Logger) // directories created meanwhile, a recreated root
			rescan()
		})
	}
}

// latest runs one call at a time in its own goroutine, abandoning the one under way
// for the next.
type latest struct {
	cancel context.CancelCauseFunc
	done   chan struct{}
}

// start abandons the call under way, waits for it to return, and starts call.
func (l *latest) start(ctx context.Context, call func(context.Context)) {
	l.stop()
	callCtx, cancel := context.WithCancelCause(ctx)
	done := make(chan struct{})
	l.cancel, l.done = cancel, done
	go func() {
		defer close(done)
		defer cancel(nil)
		call(callCtx)
	}()
}

// stop abandons the call under way, if any, and waits for it to return.
func (l *latest) stop() {
	if l.cancel != nil {
		l.cancel(ErrNewerChange)
		<-l.done
		l.cancel = nil
	}
}

// forward turns fsnotify events into hints, adding watches for new directories at once
// so that files created in them right after are not missed.
func forward(ctx context.Context, w *fsnotify.Watcher, hints chan<- struct{}, errs chan<- error, log *slog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			if ev.Op == fsnotify.Chmod {
				continue
			}
			if ev.Has(fsnotify.Create) {
				if info, err := os.Stat(ev.Name); err == nil && info.IsDir() {
					addTrees(w, []string{ev.Name}, log)
				}
			}
			select {
			case hints <- struct{}{}:
			default: // a hint is already pending
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			select {
			case errs <- err:
			case <-ctx.Done():
				return
			}
		}
	}
}

// maxSettle bounds how long a burst of hints can put a rescan off, in debounce periods:
// a file rewritten without pause must still be picked up.
const maxSettle = 5

// loop debounces hints: a rescan runs once no hint has come for the debounce time (or,
// during an endless burst, every maxSettle debounce periods), and at least every poll
// interval.
func loop(ctx context.Context, hints <-chan struct{}, errs <-chan error, cfg Config, rescan func()) {
	debounce, poll := cfg.Debounce, cfg.PollInterval
	settle := time.NewTimer(debounce)
	settle.Stop()
	defer settle.Stop()
	var deadline <-chan time.Time // set while hints are pending
	var tick <-chan time.Time
	if poll > 0 {
		t := time.NewTicker(poll)
		defer t.Stop()
		tick = t.C
	}
	hint := func() {
		settle.Reset(debounce)
		if deadline == nil {
			deadline = time.After(maxSettle * debounce)
		}
	}
	run := func() {
		settle.Stop()
		deadline = nil
		rescan()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-hints:
			hint()
		case err := <-errs:
			cfg.Logger.Warn("file watching", "err", err) // e.g. an overflowing queue: events were lost
			hint()
		case <-settle.C:
			run()
		case <-deadline:
			run()
		case <-tick:
			run()
		}
	}
}

// addTrees watches every directory under the roots but those skipDir names, which the
// loader skips; Add is idempotent, so calling it again is cheap.
func addTrees(w *fsnotify.Watcher, roots []string, log *slog.Logger) {
	for _, root := range roots {
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.IsDir() {
				return nil
			}
			if p != root && skipDir(d.Name()) {
				return fs.SkipDir
			}
			if err := w.Add(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				log.Warn("watching a directory", "dir", p, "err", err)
			}
			return nil
		})
	}
}

// skipDir reports whether a directory below a root is left out, as the loader leaves it
// out (scenarios.SkipsDir, which this package does not import): hidden directories and
// node_modules.
func skipDir(name string) bool { return strings.HasPrefix(name, ".") || name == "node_modules" }

// Fingerprint hashes the names and contents of the files under the roots that include
// accepts (all files when it is nil), following symbolic links as the loader does.
// Unreadable files, and files that are not regular ones, count by name, so their
// recovery is a change too.
func Fingerprint(roots []string, include func(string) bool) string {
	return newFingerprinter().of(roots, include)
}

// fingerprinter fingerprints a tree again and again, reading again only the files whose
// stamp does not vouch that they are unchanged (internal/filestamp): a rescan of 5,000
// files reads the one edited, not all of them.
type fingerprinter struct {
	files map[string]fileSum
	// now and read are the clock and os.ReadFile; tests change them.
	now  func() time.Time
	read func(name string) ([]byte, error)
}

// newFingerprinter returns a fingerprinter that has read nothing yet.
func newFingerprinter() *fingerprinter {
	return &fingerprinter{files: map[string]fileSum{}, now: time.Now, read: os.ReadFile}
}

// fileSum is what a fingerprint read of one regular file.
type fileSum struct {
	read filestamp.Read
	size int
	sum  [sha256.Size]byte
}

// of is Fingerprint, remembering what it read for the next call.
func (f *fingerprinter) of(roots []string, include func(string) bool) string {
	h := sha256.New()
	seen := make(map[string]fileSum, len(f.files))
	for _, root := range roots {
		var files []string
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if p != root && skipDir(d.Name()) {
					return fs.SkipDir
				}
				return nil
			}
			if include == nil || include(p) {
				files = append(files, p)
			}
			return nil
		})
		sort.Strings(files)
		for _, name := range files {
			sum, err := f.sum(name)
			if err != nil {
				fmt.Fprintf(h, "%s\x00%d\x00unreadable: %v", name, 0, err)
				continue
			}
			seen[name] = sum
			fmt.Fprintf(h, "%s\x00%d\x00", name, sum.size)
			h.Write(sum.sum[:])
		}
	}
	f.files = seen
	return hex.EncodeToString(h.Sum(nil))
}

// sum returns what a file holds, read again unless its stamp vouches for what was read
// before. Only regular files are read: opening a named pipe would wait for a writer.
func (f *fingerprinter) sum(name string) (fileSum, error) {
	statAt := f.now()
	info, err := os.Stat(name)
	if err != nil {
		return fileSum{}, err
	}
	if !info.Mode().IsRegular() {
		return fileSum{}, fmt.Errorf("not a regular file (%s)", info.Mode().Type())
	}
	stamp := filestamp.Of(info)
	if known, ok := f.files[name]; ok && known.read.Unchanged(stamp) {
		return known, nil
	}
	data, err := f.read(name)
	if err != nil {
		return fileSum{}, err
	}
	return fileSum{read: filestamp.Read{Stamp: stamp, At: statAt}, size: len(data), sum: sha256.Sum256(data)}, nil
}
