package bash

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

	"github.com/shiro-neko/shiro/internal/proc/proctest"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// plainBash is the bash tool over env, without background commands.
func plainBash(env *workspace.Env) tool.Tool { return Tools(env, nil)[0] }

func TestBashStreamsOutputBeforeTheCommandEnds(t *testing.T) {
	env := wstest.Isolated(t, nil)
	fifo := filepath.Join(env.Root, "gate")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	w := newChunkWaiter()
	done := make(chan runResult, 1)
	go func() {
		out, err := invoke(context.Background(), plainBash(env),
			tooltest.Input(t, map[string]any{"command": "echo ready; read line < gate; echo got $line"}), w.emit)
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
	env := wstest.Isolated(t, nil)
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
		got, err := runTool(t, plainBash(env), map[string]any{"command": c.command})
		if err != nil {
			t.Fatalf("%s: %v", c.command, err)
		}
		if got != c.want {
			t.Errorf("%s: got %q, want %q", c.command, got, c.want)
		}
	}
}

// The result also carries the streams bare, for a caller that wants the
// output alone (a custom command's !`cmd`).
func TestBashResultCarriesTheStreamsBare(t *testing.T) {
	env := wstest.Isolated(t, nil)
	for _, c := range []struct {
		command string
		want    tool.RunOutput
	}{
		{"echo out; echo err >&2", tool.RunOutput{Exit: 0, Stdout: "out", Stderr: "err"}},
		{"printf 'a\\tb\\n\\n'; exit 3", tool.RunOutput{Exit: 3, Stdout: "a\tb\n"}},
		{"true", tool.RunOutput{}},
	} {
		res, err := tooltest.Invoke(t.Context(), plainBash(env), tooltest.Input(t, map[string]any{"command": c.command}), tool.Runtime{CallID: "c1"})
		if err != nil {
			t.Fatalf("%s: %v", c.command, err)
		}
		if res.Run == nil || *res.Run != c.want {
			t.Errorf("%s: run = %+v, want %+v", c.command, res.Run, c.want)
		}
	}
}

// Tools without a workspace of their own work in the Background's.
func TestToolsFallBackOnTheBackgroundsWorkspace(t *testing.T) {
	env := wstest.Isolated(t, nil)
	bg := NewBackground("", env, Hooks{})
	t.Cleanup(func() { _ = bg.StopAll(context.Background()) })
	ts := Tools(nil, bg)
	if out, err := runTool(t, ts[0], map[string]any{"command": "pwd"}); err != nil || out != "exit: 0\nstdout:\n"+env.Root {
		t.Errorf("foreground: %q, %v", out, err)
	}
	if _, err := runTool(t, ts[0], map[string]any{"command": "pwd > where", "background": true}); err != nil {
		t.Fatal(err)
	}
	j, err := bg.find(1)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-j.done:
	case <-time.After(testDeadline):
		t.Fatal("the background command never ended")
	}
	if data, err := os.ReadFile(filepath.Join(env.Root, "where")); err != nil || string(data) != env.Root+"\n" {
		t.Errorf("background ran in %q, %v", data, err)
	}
}

func TestBashDrainsBothPipesWithoutDeadlock(t *testing.T) {
	env := wstest.Isolated(t, nil)
	const size = 5_000_000
	// stderr is filled first while nobody would read it if the pipes were
	// read one after the other; then both run at once.
	command := fmt.Sprintf(`head -c %[1]d /dev/zero | tr '\0' e >&2
head -c %[1]d /dev/zero | tr '\0' o &
head -c %[1]d /dev/zero | tr '\0' E >&2
wait`, size)
	var streamed int
	var mu sync.Mutex
	out, err := invoke(context.Background(), plainBash(env), tooltest.Input(t, map[string]any{"command": command}), func(chunk string) {
		mu.Lock()
		streamed += len(chunk)
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	if streamed != 3*size {
		t.Errorf("streamed %d bytes, want %d", streamed, 3*size)
	}
	if n := utf8.RuneCountInString(out); n > tool.ResultCap {
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
	env := wstest.Isolated(t, nil)
	out, err := runTool(t, plainBash(env), map[string]any{"command": "seq 1 200000"})
	if err != nil {
		t.Fatal(err)
	}
	if n := utf8.RuneCountInString(out); n > tool.ResultCap {
		t.Errorf("result is %d chars, over the cap of %d", n, tool.ResultCap)
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
	env := wstest.Isolated(t, nil)
	// sh starts in a millisecond where bash may take longer on a loaded
	// machine; the timer must not fire before the pid files are written.
	env.Shell = "sh"
	out, err := runTool(t, plainBash(env), map[string]any{
		"command": "echo $$ > shell.pid; sleep 300 & echo $! > child.pid; sleep 300",
		"timeout": 2000,
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "exit: 143\ntimed out after 2000ms (killed)"; out != want {
		t.Errorf("result %q, want %q", out, want)
	}
	for _, f := range []string{"shell.pid", "child.pid"} {
		pid := readPIDFile(t, filepath.Join(env.Root, f))
		proctest.KillOnCleanup(t, pid)
		if !proctest.Exited(t, pid, testDeadline) {
			t.Errorf("%s (%d) still runs after the timeout", f, pid)
		}
	}
}

func TestBashCancelReturnsInterruptedAndKillsTheGroup(t *testing.T) {
	env := wstest.Isolated(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newChunkWaiter()
	done := make(chan runResult, 1)
	go func() {
		out, err := invoke(ctx, plainBash(env),
			tooltest.Input(t, map[string]any{"command": "sleep 300 & echo $! > child.pid; echo started; wait"}), w.emit)
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
	proctest.KillOnCleanup(t, child)
	if !proctest.Exited(t, child, testDeadline) {
		t.Errorf("child %d survived the interrupt", child)
	}
}

func TestBashKillsWhatIgnoresSIGTERMAfterTheGrace(t *testing.T) {
	env := wstest.Isolated(t, nil)
	tl := bashTool(env, nil, killTiming{grace: 100 * time.Millisecond, drain: 100 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := newChunkWaiter()
	done := make(chan error, 1)
	go func() {
		_, err := invoke(ctx, tl,
			tooltest.Input(t, map[string]any{"command": "trap '' TERM; sleep 300 & echo $! > child.pid; echo started; wait"}), w.emit)
		done <- err
	}()
	w.waitFor(t, "started")
	cancel()
	if err := <-done; !errors.Is(err, ErrInterrupted) {
		t.Fatalf("got %v", err)
	}
	child := readPIDFile(t, filepath.Join(env.Root, "child.pid"))
	proctest.KillOnCleanup(t, child)
	if !proctest.Exited(t, child, testDeadline) {
		data, _ := os.ReadFile(fmt.Sprintf("/proc/%d/stat", child))
		t.Errorf("child %d ignoring SIGTERM survived: %s", child, data)
	}
}

func TestBashStopsLeftoversWhenTheShellExits(t *testing.T) {
	env := wstest.Isolated(t, nil)
	// The leftover holds stdout open; without the group kill the call
	// would wait for it for 300 seconds.
	out, err := runTool(t, plainBash(env), map[string]any{"command": "sleep 300 & echo $! > child.pid; echo bye"})
	if err != nil {
		t.Fatal(err)
	}
	want := "exit: 0\nprocesses the command left running were stopped (use background: true for servers and watchers)\nstdout:\nbye"
	if out != want {
		t.Errorf("result %q, want %q", out, want)
	}
	child := readPIDFile(t, filepath.Join(env.Root, "child.pid"))
	proctest.KillOnCleanup(t, child)
	if !proctest.Exited(t, child, testDeadline) {
		t.Errorf("leftover %d still runs", child)
	}
}

func TestBashDoesNotHangOnAnEscapedPipeHolder(t *testing.T) {
	env := wstest.Isolated(t, nil)
	tl := bashTool(env, nil, killTiming{grace: time.Second, drain: 100 * time.Millisecond})
	if err := syscall.Mkfifo(filepath.Join(env.Root, "escaped"), 0o600); err != nil {
		t.Fatal(err)
	}
	// setsid takes the sleep out of the command's group and session, so the
	// group kill cannot reach it, yet it holds stdout. The shell waits on
	// the fifo until the escape is done.
	command := `setsid sh -c 'echo $$ > escaped.pid; echo > escaped; exec sleep 300' & read -r _ < escaped; echo bye`
	out, err := invoke(context.Background(), tl, tooltest.Input(t, map[string]any{"command": command}), nil)
	escaped := readPIDFile(t, filepath.Join(env.Root, "escaped.pid"))
	proctest.KillOnCleanup(t, escaped)
	if err != nil {
		t.Fatal(err)
	}
	if out != "exit: 0\nstdout:\nbye" {
		t.Errorf("result %q", out)
	}
}

func TestBashRunsInItsOwnSessionWithoutATerminal(t *testing.T) {
	env := wstest.Isolated(t, nil)
	out, err := runTool(t, plainBash(env), map[string]any{
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
	env := wstest.Isolated(t, nil)
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
	out, err := runTool(t, plainBash(env), map[string]any{"command": "env"})
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

func TestBashStreamsWholeRunes(t *testing.T) {
	env := wstest.Isolated(t, nil)
	// 33,333 lines of 9 bytes: the pipe splits them anywhere, the stream
	// itself ends on a rune boundary.
	var mu sync.Mutex
	var chunks []string
	out, err := invoke(context.Background(), plainBash(env), tooltest.Input(t, map[string]any{"command": `yes 'é日本' | head -c 299997`}), func(c string) {
		mu.Lock()
		chunks = append(chunks, c)
		mu.Unlock()
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

func TestBashInputErrors(t *testing.T) {
	env := wstest.Isolated(t, nil)
	tl := plainBash(env)
	for _, c := range []struct {
		input map[string]any
		want  string
	}{
		{map[string]any{"command": "true", "timeout": 999}, "timeout must be at least 1000; got 999"},
		{map[string]any{"command": "true", "timeout": 600001}, "timeout must be at most 600000; got 600001"},
		{map[string]any{}, `missing properties: ["command"]`},
		{map[string]any{"command": ""}, "command is required"},
		{map[string]any{"command": "sleep 1", "background": true}, "background commands are not available here"},
	} {
		_, err := runTool(t, tl, c.input)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.input, err, c.want)
		}
	}
	if _, err := invoke(context.Background(), tl, json.RawMessage(`{"command": 5}`), nil); err == nil {
		t.Error("a non-string command was accepted")
	}
}

func BenchmarkBashTrue(b *testing.B) {
	env := wstest.Isolated(b, nil)
	env.Shell = "sh" // measure shiro's overhead, not the shell's start-up
	tl := plainBash(env)
	input := json.RawMessage(`{"command":"true"}`)
	for b.Loop() {
		if _, err := invoke(context.Background(), tl, input, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBashTrueWithBash measures a command the way it normally runs,
// with bash, now that no login files are read.
func BenchmarkBashTrueWithBash(b *testing.B) {
	env := wstest.Isolated(b, nil)
	tl := plainBash(env)
	input := json.RawMessage(`{"command":"true"}`)
	for b.Loop() {
		if _, err := invoke(context.Background(), tl, input, nil); err != nil {
			b.Fatal(err)
		}
	}
}
