//go:build linux

package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

func TestBashStreamsOutputBeforeTheCommandEnds(t *testing.T) {
	env := testEnv(t)
	fifo := filepath.Join(env.Root, "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	w := newChunkWaiter()
	done := make(chan runResult, 1)
	go func() {
		out, err := Bash(env, nil).Run(context.Background(), Call{
			Input:  jsonInput(t, map[string]any{"command": "echo ready; read line < gate; echo got $line"}),
			Env:    env,
			Output: w.emit,
		})
		done <- runResult{out, err}
	}()
	// The command cannot finish before the gate is opened below, so seeing
	// "ready" here proves it was streamed while the command ran.
	w.waitFor(t, "ready\n")
	select {
	case r := <-done:
		t.Fatalf("command finished before its gate opened: %+v", r)
	default:
	}
	gate, err := os.OpenFile(fifo, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gate.WriteString("open\n"); err != nil {
		t.Fatal(err)
	}
	_ = gate.Close()
	r := <-done
	if r.err != nil {
		t.Fatal(r.err)
	}
	if want := "exit: 0\nstdout:\nready\ngot open"; r.out != want {
		t.Errorf("result %q, want %q", r.out, want)
	}
	if w.String() != "ready\ngot open\n" {
		t.Errorf("streamed %q", w.String())
	}
}

func TestBashResultFormat(t *testing.T) {
	env := testEnv(t)
	cases := []struct{ command, want string }{
		{"true", "exit: 0"},
		{"echo out; echo err >&2", "exit: 0\nstdout:\nout\nstderr:\nerr"},
		{"echo only-err >&2; exit 3", "exit: 3\nstderr:\nonly-err"},
		{"false", "exit: 1"},
		{"kill -TERM $$", "exit: 143"},
		{"printf 'no newline'", "exit: 0\nstdout:\nno newline"},
		{"pwd", "exit: 0\nstdout:\n" + env.Root},
	}
	for _, c := range cases {
		got, err := runBash(t, Bash(env, nil), env, map[string]any{"command": c.command})
		if err != nil {
			t.Fatalf("%s: %v", c.command, err)
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.command, got, c.want)
		}
	}
}

func TestBashDrainsBothPipesWithoutDeadlock(t *testing.T) {
	env := testEnv(t)
	const size = 5_000_000
	// stderr is filled first while nobody would read it if the pipes were
	// read one after the other; then both run at once.
	command := fmt.Sprintf(`head -c %[1]d /dev/zero | tr '\0' e >&2
head -c %[1]d /dev/zero | tr '\0' o &
head -c %[1]d /dev/zero | tr '\0' E >&2
wait`, size)
	var streamed int
	var mu sync.Mutex
	out, err := Bash(env, nil).Run(context.Background(), Call{
		Input: jsonInput(t, map[string]any{"command": command}),
		Env:   env,
		Output: func(chunk string) {
			mu.Lock()
			streamed += len(chunk)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if streamed != 3*size {
		t.Errorf("streamed %d bytes, want %d", streamed, 3*size)
	}
	if n := utf8.RuneCountInString(out); n > ResultCap {
		t.Errorf("result is %d chars, over the cap", n)
	}
	if !strings.HasPrefix(out, "exit: 0\nstdout:\nooo") || !strings.Contains(out, "\nstderr:\neee") {
		t.Errorf("result does not start with both streams: %.200q", out)
	}
	stdoutBlock, stderrBlock, _ := strings.Cut(out, "\nstderr:\n")
	for _, b := range []struct {
		name, text string
		total      int
		last       string
	}{{"stdout", stdoutBlock, size, "o"}, {"stderr", stderrBlock, 2 * size, "E"}} {
		m := regexp.MustCompile(`\[\.\.\. (\d+) bytes omitted \.\.\.\]\n`).FindStringSubmatchIndex(b.text)
		if m == nil {
			t.Fatalf("%s has no omission note", b.name)
		}
		omittedN, _ := strconv.Atoi(b.text[m[2]:m[3]])
		head := strings.TrimSuffix(b.text[:m[0]], "\n")
		head = head[strings.LastIndexByte(head, '\n')+1:]
		tail := b.text[m[1]:]
		if len(head)+len(tail)+omittedN != b.total {
			t.Errorf("%s: shown %d+%d and omitted %d do not add up to %d", b.name, len(head), len(tail), omittedN, b.total)
		}
		if !strings.HasSuffix(tail, b.last) {
			t.Errorf("%s tail does not end the stream: %.50q", b.name, tail[max(0, len(tail)-50):])
		}
	}
}

func TestBashCapKeepsHeadAndTail(t *testing.T) {
	env := testEnv(t)
	out, err := runBash(t, Bash(env, nil), env, map[string]any{"command": "seq 1 200000"})
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(out); n > ResultCap {
		t.Errorf("result is %d chars, over the cap of %d", n, ResultCap)
	}
	if !strings.HasPrefix(out, "exit: 0\nstdout:\n1\n2\n3\n") {
		t.Errorf("head lost: %.80q", out)
	}
	if !strings.HasSuffix(out, "\n199999\n200000") {
		t.Errorf("tail lost: %q", out[len(out)-80:])
	}
	if !strings.Contains(out, " bytes omitted ...]") {
		t.Error("no omission note")
	}
}

func TestBashTimeoutKillsTheWholeGroup(t *testing.T) {
	env := testEnv(t)
	// sh starts in a millisecond where bash -l may take most of a second
	// on a loaded machine; the timer must not fire before the pid files
	// are written.
	env.Shell = "sh"
	start := time.Now()
	out, err := runBash(t, Bash(env, nil), env, map[string]any{
		"command": "echo $$ > shell.pid; sleep 300 & echo $! > child.pid; sleep 300",
		"timeout": 2000,
	})
	if err != nil {
		t.Fatal(err)
	}
	if elapsed := time.Since(start); elapsed > 10*time.Second {
		t.Errorf("took %v", elapsed)
	}
	if want := "exit: 143\ntimed out after 2000ms (killed)"; out != want {
		t.Errorf("result %q, want %q", out, want)
	}
	for _, f := range []string{"shell.pid", "child.pid"} {
		pid := readPIDFile(t, filepath.Join(env.Root, f))
		killOnCleanup(t, pid)
		if !pidGone(pid) {
			t.Errorf("%s (%d) still runs after the timeout", f, pid)
		}
	}
}

func TestBashCancelReturnsInterruptedAndKillsTheGroup(t *testing.T) {
	env := testEnv(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newChunkWaiter()
	done := make(chan runResult, 1)
	go func() {
		out, err := Bash(env, nil).Run(ctx, Call{
			Input:  jsonInput(t, map[string]any{"command": "sleep 300 & echo $! > child.pid; echo started; wait"}),
			Env:    env,
			Output: w.emit,
		})
		done <- runResult{out, err}
	}()
	w.waitFor(t, "started")
	cancel()
	r := <-done
	if !errors.Is(r.err, ErrInterrupted) {
		t.Fatalf("got %q, %v; want ErrInterrupted", r.out, r.err)
	}
	if want := "The user interrupted this command. It did not finish, so its effects are unknown."; r.err.Error() != want {
		t.Errorf("error text %q", r.err)
	}
	child := readPIDFile(t, filepath.Join(env.Root, "child.pid"))
	killOnCleanup(t, child)
	if !pidGone(child) {
		t.Errorf("child %d survived the interrupt", child)
	}
}

func TestBashKillsWhatIgnoresSIGTERMAfterTheGrace(t *testing.T) {
	env := testEnv(t)
	tool := bashTool{env: env, timing: killTiming{grace: 100 * time.Millisecond, drain: 100 * time.Millisecond}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newChunkWaiter()
	done := make(chan error, 1)
	go func() {
		_, err := tool.Run(ctx, Call{
			Input:  jsonInput(t, map[string]any{"command": "trap '' TERM; sleep 300 & echo $! > child.pid; echo started; wait"}),
			Env:    env,
			Output: w.emit,
		})
		done <- err
	}()
	w.waitFor(t, "started")
	cancel()
	if err := <-done; !errors.Is(err, ErrInterrupted) {
		t.Fatalf("got %v", err)
	}
	child := readPIDFile(t, filepath.Join(env.Root, "child.pid"))
	killOnCleanup(t, child)
	if !pidGone(child) {
		data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", child))
		t.Errorf("child %d ignoring SIGTERM survived: %s", child, data)
	}
}

func TestBashStopsLeftoversWhenTheShellExits(t *testing.T) {
	env := testEnv(t)
	// The leftover holds stdout open; without the group kill the call
	// would wait for it for 300 seconds.
	out, err := runBash(t, Bash(env, nil), env, map[string]any{"command": "sleep 300 & echo $! > child.pid; echo bye"})
	if err != nil {
		t.Fatal(err)
	}
	want := "exit: 0\nprocesses the command left running were stopped (use background: true for servers and watchers)\nstdout:\nbye"
	if out != want {
		t.Errorf("result %q, want %q", out, want)
	}
	child := readPIDFile(t, filepath.Join(env.Root, "child.pid"))
	killOnCleanup(t, child)
	if !pidGone(child) {
		t.Errorf("leftover %d still runs", child)
	}
}

func TestBashDoesNotHangOnAnEscapedPipeHolder(t *testing.T) {
	env := testEnv(t)
	tool := bashTool{env: env, timing: killTiming{grace: time.Second, drain: 100 * time.Millisecond}}
	if err := syscall.Mkfifo(filepath.Join(env.Root, "escaped"), 0o600); err != nil {
		t.Fatal(err)
	}
	// setsid takes the sleep out of the command's group and session, so the
	// group kill cannot reach it, yet it holds stdout. The shell waits on
	// the fifo until the escape is done.
	command := `setsid sh -c 'echo $$ > escaped.pid; echo > escaped; exec sleep 300' & read -r _ < escaped; echo bye`
	out, err := tool.Run(context.Background(), Call{
		Input: jsonInput(t, map[string]any{"command": command}),
		Env:   env,
	})
	escaped := readPIDFile(t, filepath.Join(env.Root, "escaped.pid"))
	killOnCleanup(t, escaped)
	if err != nil {
		t.Fatal(err)
	}
	if out != "exit: 0\nstdout:\nbye" {
		t.Errorf("result %q", out)
	}
}

func TestBashRunsInItsOwnSessionWithoutATerminal(t *testing.T) {
	env := testEnv(t)
	out, err := runBash(t, Bash(env, nil), env, map[string]any{
		"command": `read -r pid comm state ppid pgrp session rest < /proc/$$/stat; echo "$$ $pgrp $session"; read -r line; echo "stdin rc=$?"`,
	})
	if err != nil {
		t.Fatal(err)
	}
	var pid, pgrp, session int
	if _, err := fmt.Sscanf(strings.TrimPrefix(out, "exit: 0\nstdout:\n"), "%d %d %d", &pid, &pgrp, &session); err != nil {
		t.Fatalf("%q: %v", out, err)
	}
	if pgrp != pid || session != pid {
		t.Errorf("shell %d has group %d and session %d; want it to lead both", pid, pgrp, session)
	}
	if !strings.HasSuffix(out, "stdin rc=1") {
		t.Errorf("stdin is not empty: %q", out)
	}
}

func TestBashEnvironmentIsScrubbedAndNonInteractive(t *testing.T) {
	env := testEnv(t)
	env.ShellEnv = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + env.Root,
		"ANTHROPIC_API_KEY=sk-ant-secret",
		"OPENAI_API_KEY=sk-openai-secret",
		"SHIRO_API_KEY=sk-shiro-secret",
		"MY_SERVICE_API_KEY=sk-other-secret",
		"PAGER=less",
		"EDITOR=vim",
		"KEEP_ME=1",
	}
	out, err := runBash(t, Bash(env, nil), env, map[string]any{"command": "env"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "secret") || strings.Contains(out, "_API_KEY") {
		t.Errorf("a key reached the command:\n%s", out)
	}
	for _, want := range []string{"\nKEEP_ME=1\n", "\nPAGER=cat\n", "\nGIT_PAGER=cat\n", "\nEDITOR=false\n", "\nGIT_EDITOR=false\n", "\nGIT_TERMINAL_PROMPT=0\n"} {
		if !strings.Contains(out+"\n", want) {
			t.Errorf("env lacks %q:\n%s", strings.TrimSpace(want), out)
		}
	}
}

func TestScrubEnvAndCommandEnv(t *testing.T) {
	in := []string{"A=1", "GROQ_API_KEY=g", "xai_api_key=x", "API_KEY=k", "ANTHROPIC_AUTH_TOKEN=t", "NOTAKEY=2", "PAGER=less", "PAGER=more", "broken"}
	if got, want := strings.Join(ScrubEnv(in), " "), "A=1 NOTAKEY=2 PAGER=less PAGER=more broken"; got != want {
		t.Errorf("ScrubEnv = %q, want %q", got, want)
	}
	got := strings.Join(CommandEnv(in), " ")
	want := "A=1 NOTAKEY=2 broken GIT_EDITOR=false EDITOR=false VISUAL=false PAGER=cat GIT_PAGER=cat GIT_TERMINAL_PROMPT=0"
	if got != want {
		t.Errorf("CommandEnv = %q, want %q", got, want)
	}
}

func TestBashStreamsWholeRunes(t *testing.T) {
	env := testEnv(t)
	// 33,333 lines of 9 bytes: the pipe splits them anywhere, the stream
	// itself ends on a rune boundary.
	var mu sync.Mutex
	var chunks []string
	out, err := Bash(env, nil).Run(context.Background(), Call{
		Input: jsonInput(t, map[string]any{"command": `yes 'é日本' | head -c 299997`}),
		Env:   env,
		Output: func(c string) {
			mu.Lock()
			chunks = append(chunks, c)
			mu.Unlock()
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range chunks {
		if !utf8.ValidString(c) {
			t.Fatalf("chunk %d of %d splits a rune: ends %q", i, len(chunks), c[max(0, len(c)-4):])
		}
	}
	if !utf8.ValidString(out) {
		t.Error("result is not valid UTF-8")
	}
}

func TestBashInputErrorsAndMeta(t *testing.T) {
	env := testEnv(t)
	tool := Bash(env, nil)
	for _, c := range []struct {
		input map[string]any
		want  string
	}{
		{map[string]any{"command": "true", "timeout": 999}, "timeout must be between 1000 and 600000 milliseconds, got 999"},
		{map[string]any{"command": "true", "timeout": 600001}, "timeout must be between 1000 and 600000 milliseconds, got 600001"},
		{map[string]any{}, "command is required"},
		{map[string]any{"command": "sleep 1", "background": true}, "background commands are not available here"},
	} {
		_, err := runBash(t, tool, env, c.input)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.input, err, c.want)
		}
	}
	if _, err := tool.Run(context.Background(), Call{Input: json.RawMessage(`{"command": 5}`), Env: env}); err == nil {
		t.Error("a non-string command was accepted")
	}

	m := tool.Meta()
	if m.Set != SetCore || !m.Mutating || m.Guidance == "" {
		t.Errorf("meta %+v", m)
	}
	raw := json.RawMessage(`{"command":"git status && rm -rf x","timeout":5000}`)
	for name, f := range map[string]func(json.RawMessage) []string{"Subjects": m.Subjects, "Commands": m.Commands} {
		if got := f(raw); len(got) != 1 || got[0] != "git status && rm -rf x" {
			t.Errorf("%s = %q", name, got)
		}
		if got := f(json.RawMessage(`{"command":`)); got != nil {
			t.Errorf("%s of broken input = %q", name, got)
		}
	}
	var schema map[string]any
	if err := json.Unmarshal(tool.Spec().Schema, &schema); err != nil {
		t.Fatalf("schema: %v", err)
	}
}

func BenchmarkBashTrue(b *testing.B) {
	env, err := NewEnv(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	env.Shell = "sh" // measure shiro's overhead, not bash's login files
	tool := Bash(env, nil)
	input := json.RawMessage(`{"command":"true"}`)
	for b.Loop() {
		if _, err := tool.Run(context.Background(), Call{Input: input, Env: env}); err != nil {
			b.Fatal(err)
		}
	}
}
