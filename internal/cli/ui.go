package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// The terminal UI is not linked into the shiro program. Go runs the
// initialiser of every package a program links, and the UI's markdown and
// highlighting stack (glamour, chroma's lexers and styles, goldmark,
// bluemonday) spends about 30 ms there, before main, on every start:
// `--version`, headless runs and `explain` paid for a UI they never draw.
// So cmd/shiro builds without it, and cmd/shiro-tui is the same program
// with the UI linked in (MainWithUI). When shiro is asked for the UI it
// replaces itself with shiro-tui, same arguments and environment, before it
// has loaded anything. docs/performance.md has the figures.

// UIProgram is the name of the program that has the terminal UI.
const UIProgram = "shiro-tui"

// handOffMarker is set in the environment of the program a hand-off starts,
// so that a shiro-tui built without the UI fails instead of starting itself
// again and again.
const handOffMarker = "SHIRO_UI_HANDOFF"

// Session is what the terminal UI drives: ops go in, events come out.
type Session interface {
	Submit(op protocol.Op) (string, error)
	Events() <-chan protocol.Event
}

// UIOptions configure one run of the terminal UI.
type UIOptions struct {
	// Out is the terminal; nil leaves the UI's own default.
	Out io.Writer
	// HistoryPath is the workspace's prompt history file of older
	// versions, read once into an empty History.
	HistoryPath string
	// History is the workspace's prompt history kept in the session store
	// (store.PromptHistory): every window on the project shares it, and it
	// lives beside the sessions.
	History PromptHistory
	// FirstPrompt is sent once the session is ready (`shiro "prompt"`).
	FirstPrompt string
	// StatusLine runs the person's status line command and returns the
	// line to show; nil when none is set.
	StatusLine func(ctx context.Context, linesAdded, linesRemoved int) (string, error)
	// Notifications is the notifications key: off, auto, always, or a
	// method (config.NotificationModes).
	Notifications string
}

// PromptHistory is a project's prompt history, oldest first.
type PromptHistory interface {
	Load(ctx context.Context) ([]string, error)
	// Add records a sent prompt; a repeat of the newest is not added.
	Add(ctx context.Context, prompt string) error
}

// UI shows the terminal UI on a running session until the person quits,
// and returns what to print on the way out.
type UI func(ctx context.Context, s Session, o UIOptions) (farewell string, err error)

// MainWithUI is Main for the build that links the terminal UI.
func MainWithUI(args []string, ui UI) int {
	return mainWith(args, func(stdio *IO) { stdio.UI = ui })
}

// handOff replaces this process with the UI program, or, where a process
// cannot be replaced, runs it and exits with its status.
type handOff struct {
	argv    []string // the whole command line, program name first
	environ []string
	self    func() (string, error)       // this executable
	look    func(string) (string, error) // a program on PATH
	run     func(path string, argv, env []string) error
}

// newHandOff hands this process's own command line over.
func newHandOff() *handOff {
	return &handOff{argv: os.Args, environ: os.Environ(), self: os.Executable, look: exec.LookPath, run: replaceProcess}
}

// start runs the UI program on the same arguments and environment.
func (h *handOff) start() error {
	if v := envValue(h.environ, handOffMarker); v != "" {
		return fmt.Errorf("%s was started to show the terminal UI, but this build of it has none (it is plain shiro, from %s): reinstall it from ./cmd/%s", UIProgram, v, UIProgram)
	}
	path, err := h.locate()
	if err != nil {
		return err
	}
	self, err := h.self()
	if err != nil {
		self = "shiro"
	}
	argv := append([]string{path}, h.argv[1:]...)
	env := append(h.environ[:len(h.environ):len(h.environ)], handOffMarker+"="+self)
	if err := h.run(path, argv, env); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return exitError{code: exit.ExitCode()}
		}
		return fmt.Errorf("starting the terminal UI (%s): %w", path, err)
	}
	return nil
}

// locate finds the UI program next to this executable (an install puts
// both in one directory), then on PATH.
func (h *handOff) locate() (string, error) {
	name := UIProgram
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	self, err := h.self()
	if err == nil {
		if resolved, rerr := filepath.EvalSymlinks(self); rerr == nil {
			self = resolved
		}
		sibling := filepath.Join(filepath.Dir(self), name)
		if fi, serr := os.Stat(sibling); serr == nil && fi.Mode().IsRegular() && (runtime.GOOS == "windows" || fi.Mode()&0o111 != 0) {
			return sibling, nil
		}
	}
	if path, lerr := h.look(name); lerr == nil {
		return path, nil
	}
	if err == nil && builtByGoRun(self) {
		return "", fmt.Errorf("`go run ./cmd/shiro` builds shiro without its terminal UI, which is the separate program %s: "+
			"run `go run ./cmd/%s` instead (same arguments), or `go install ./cmd/...` once and run shiro; "+
			"for scripts use -p \"prompt\"", UIProgram, UIProgram)
	}
	// No `go install …@latest`: shiro is installed from a checkout, not
	// fetched by module path, so the advice names what works there.
	where, beside := "next to shiro", "DIR-OF-SHIRO"
	if err == nil {
		where, beside = "in "+filepath.Dir(self), filepath.Dir(self)
	}
	return "", fmt.Errorf("the terminal UI is the separate program %s, and it is neither %s nor on PATH: "+
		"in a checkout of shiro's source, run `go install ./cmd/...` (it installs shiro and %s side by side), "+
		"or build it beside this shiro with `go build -o %s ./cmd/%s`; "+
		"for scripts use -p \"prompt\"", UIProgram, where, UIProgram, filepath.Join(beside, name), UIProgram)
}

// builtByGoRun reports whether the executable at path is one that `go run`
// built and will delete: it lives in the go command's work directory,
// <tmp>/go-build<N>/b<N>/exe/<name>, where no shiro-tui can be beside it.
func builtByGoRun(path string) bool {
	exe := filepath.Dir(path)
	work := filepath.Dir(filepath.Dir(exe))
	return filepath.Base(exe) == "exe" && strings.HasPrefix(filepath.Base(work), "go-build")
}

// envValue is the value of key in environ, or "".
func envValue(environ []string, key string) string {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}
