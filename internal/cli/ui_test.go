package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// ran records what a hand-off would have run.
type ran struct {
	path       string
	argv, env  []string
	calls      int
	answerWith error
}

func (r *ran) run(path string, argv, env []string) error {
	r.path, r.argv, r.env = path, argv, env
	r.calls++
	return r.answerWith
}

// fakeInstall makes a directory holding shiro and, if withUI, an
// executable shiro-tui.
func fakeInstall(t *testing.T, withUI bool) (dir, self string) {
	t.Helper()
	dir = t.TempDir()
	self = filepath.Join(dir, "shiro")
	files := []string{self}
	if withUI {
		files = append(files, filepath.Join(dir, UIProgram))
	}
	for _, f := range files {
		if err := os.WriteFile(f, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir, self
}

func testHandOff(self string, r *ran, onPath map[string]string) *handOff {
	return &handOff{
		argv:    []string{"shiro", "--agent", "deep", "fix the tests"},
		environ: []string{"HOME=/home/me", "SHIRO_MODEL=m"},
		self:    func() (string, error) { return self, nil },
		look: func(name string) (string, error) {
			if p, ok := onPath[name]; ok {
				return p, nil
			}
			return "", exec.ErrNotFound
		},
		run: r.run,
	}
}

// The UI program next to shiro gets shiro's own arguments and environment,
// plus the marker naming the shiro that handed over.
func TestHandOffRunsTheUIProgramNextToShiroWithTheSameArguments(t *testing.T) {
	dir, self := fakeInstall(t, true)
	r := &ran{}
	if err := testHandOff(self, r, map[string]string{UIProgram: "/elsewhere/shiro-tui"}).start(); err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, UIProgram)
	if r.path != want {
		t.Errorf("ran %s, want the sibling %s", r.path, want)
	}
	if wantArgv := []string{want, "--agent", "deep", "fix the tests"}; !slices.Equal(r.argv, wantArgv) {
		t.Errorf("argv %q, want %q", r.argv, wantArgv)
	}
	if wantEnv := []string{"HOME=/home/me", "SHIRO_MODEL=m", handOffMarker + "=" + self}; !slices.Equal(r.env, wantEnv) {
		t.Errorf("env %q, want %q", r.env, wantEnv)
	}
}

func TestHandOffFallsBackToPath(t *testing.T) {
	_, self := fakeInstall(t, false)
	r := &ran{}
	if err := testHandOff(self, r, map[string]string{UIProgram: "/opt/bin/shiro-tui"}).start(); err != nil {
		t.Fatal(err)
	}
	if r.path != "/opt/bin/shiro-tui" || r.argv[0] != "/opt/bin/shiro-tui" {
		t.Errorf("ran %s (argv %q), want the one on PATH", r.path, r.argv)
	}
}

// Without the UI program the error says what is missing and how to get it.
func TestHandOffWithoutTheUIProgramSaysHowToInstallIt(t *testing.T) {
	dir, self := fakeInstall(t, false)
	r := &ran{}
	err := testHandOff(self, r, nil).start()
	if err == nil || r.calls != 0 {
		t.Fatalf("err %v after %d runs, want an error and no run", err, r.calls)
	}
	// What it suggests must work from a checkout: shiro's module cannot be
	// fetched by path, so `go install …@latest` fails.
	build := "go build -o " + filepath.Join(dir, UIProgram) + " ./cmd/shiro-tui"
	for _, want := range []string{UIProgram, dir, "go install ./cmd/...", build, "-p"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	if strings.Contains(err.Error(), "@latest") {
		t.Errorf("error suggests an install by module path, which cannot work: %v", err)
	}
}

// `go run ./cmd/shiro` runs a shiro built in the go command's work
// directory, which holds no shiro-tui: the error says what to run instead.
func TestHandOffFromGoRunSaysToRunTheUIProgram(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "go-build1234", "b001", "exe")
	if err := os.MkdirAll(exe, 0o755); err != nil {
		t.Fatal(err)
	}
	self := filepath.Join(exe, "shiro")
	if err := os.WriteFile(self, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := &ran{}
	err := testHandOff(self, r, nil).start()
	if err == nil || r.calls != 0 {
		t.Fatalf("err %v after %d runs, want an error and no run", err, r.calls)
	}
	for _, want := range []string{"go run ./cmd/shiro-tui", "go install ./cmd/..."} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q: %v", want, err)
		}
	}
	// Installed next to each other, a go-build path is not special.
	if builtByGoRun("/usr/local/bin/shiro") || !builtByGoRun(self) {
		t.Error("builtByGoRun misjudges an installed or a go run path")
	}
}

// A shiro-tui that is really plain shiro would hand off to itself for
// ever; the marker stops it at the first step.
func TestHandOffRefusesToHandOffTwice(t *testing.T) {
	_, self := fakeInstall(t, true)
	r := &ran{}
	h := testHandOff(self, r, nil)
	h.environ = append(h.environ, handOffMarker+"=/usr/bin/shiro")
	err := h.start()
	if err == nil || r.calls != 0 || !strings.Contains(err.Error(), "/usr/bin/shiro") {
		t.Fatalf("err %v after %d runs, want a refusal naming the first shiro", err, r.calls)
	}
}

// Where the process is not replaced, the UI program's exit status is
// shiro's.
func TestHandOffPassesTheExitStatusOn(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	exitErr := exec.Command(sh, "-c", "exit 3").Run()
	_, self := fakeInstall(t, true)
	r := &ran{answerWith: exitErr}
	err = testHandOff(self, r, nil).start()
	var ee exitError
	if !errors.As(err, &ee) || ee.code != 3 {
		t.Fatalf("err %v, want exit status 3", err)
	}
}

// cliIO is an IO on a scratch workspace and home, on a terminal.
func cliIO(t *testing.T, out io.Writer) IO {
	t.Helper()
	work, home := t.TempDir(), t.TempDir()
	return IO{
		In: strings.NewReader(""), Out: out, Err: out,
		Getenv: func(k string) string {
			return map[string]string{"SHIRO_HOME": home, "HOME": home}[k]
		},
		Getwd:   func() (string, error) { return work, nil },
		IsTTYIn: true, IsTTYOut: true,
	}
}

// Plain shiro hands a request for the UI over before it loads anything: a
// config file it could not read is left for the UI program to report.
func TestShiroHandsTheUIOverBeforeLoading(t *testing.T) {
	var out strings.Builder
	stdio := cliIO(t, &out)
	state := filepath.Join(stdio.Getenv("SHIRO_HOME"), ".shiro-neko")
	if err := os.MkdirAll(state, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "config.json"), []byte("{ this is not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	calls := 0
	stdio.HandOff = func() error { calls++; return exitError{code: 7} }
	if code := Run(t.Context(), []string{"fix", "it"}, stdio); code != 7 || calls != 1 {
		t.Fatalf("exit %d after %d hand-offs, want 7 after 1 (output %q)", code, calls, out.String())
	}
	if out.String() != "" {
		t.Errorf("shiro printed before handing over: %q", out.String())
	}
}

// The UI needs a terminal on both ends: either missing, neither build
// starts it, and the message names the stream and the way out (-p).
func TestShiroWithoutATerminalDoesNotHandOff(t *testing.T) {
	for _, c := range []struct {
		in, out bool
		want    string
	}{
		{false, true, "stdin is not one"},
		{true, false, "stdout is not one"},
		{false, false, "neither is"},
	} {
		var out strings.Builder
		stdio := cliIO(t, &out)
		stdio.IsTTYIn, stdio.IsTTYOut = c.in, c.out
		stdio.HandOff = func() error { t.Error("handed off without a terminal"); return nil }
		if code := Run(t.Context(), nil, stdio); code != 1 || !strings.Contains(out.String(), c.want) || !strings.Contains(out.String(), `-p "prompt"`) {
			t.Errorf("stdin tty %v, stdout tty %v: exit %d, output %q", c.in, c.out, code, out.String())
		}

		out.Reset()
		stdio.HandOff = nil
		stdio.UI = func(context.Context, Session, UIOptions) (string, error) {
			t.Error("the UI build opened the UI without a terminal")
			return "", nil
		}
		if code := Run(t.Context(), nil, stdio); code != 1 || !strings.Contains(out.String(), c.want) {
			t.Errorf("UI build, stdin tty %v, stdout tty %v: exit %d, output %q", c.in, c.out, code, out.String())
		}
	}
}

func TestHeadlessRunsDoNotHandOff(t *testing.T) {
	var out strings.Builder
	stdio := cliIO(t, &out)
	stdio.HandOff = func() error { t.Error("a headless run handed off"); return nil }
	if code := Run(t.Context(), []string{"-p", "hello", "--provider", "replay"}, stdio); code != 1 || !strings.Contains(out.String(), "--cassette") {
		t.Errorf("exit %d, output %q: want the headless path's complaint about the cassette", code, out.String())
	}
}

// The UI build runs the UI in-process on the opened session, with the
// prompt from the arguments, and prints its farewell.
func TestTheUIBuildRunsTheUIOnTheSession(t *testing.T) {
	var out strings.Builder
	stdio := cliIO(t, &out)
	stdio.HandOff = func() error { t.Error("the UI build handed off"); return nil }
	var got UIOptions
	var first protocol.Event
	stdio.UI = func(ctx context.Context, s Session, o UIOptions) (string, error) {
		got = o
		first = <-s.Events()
		return "bye\n", nil
	}
	cassette := filepath.Join(t.TempDir(), "none.jsonl")
	if err := os.WriteFile(cassette, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if code := Run(t.Context(), []string{"--provider", "replay", "--cassette", cassette, "fix", "it"}, stdio); code != 0 {
		t.Fatalf("exit %d: %s", code, out.String())
	}
	if got.FirstPrompt != "fix it" || got.HistoryPath == "" {
		t.Errorf("UI options %+v", got)
	}
	if _, ok := first.(protocol.SessionEvent); !ok {
		t.Errorf("first event %T, want the session's description", first)
	}
	if !strings.HasSuffix(out.String(), "bye\n") {
		t.Errorf("output %q lacks the farewell", out.String())
	}
}
