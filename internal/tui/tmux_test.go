//go:build linux

package tui

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/shiro-neko/shiro/internal/cli"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

// asShiroTUI makes this test binary run as shiro-tui: the tmux test starts
// it in a real terminal.
const asShiroTUI = "SHIRO_TEST_AS_SHIRO_TUI"

func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	if os.Getenv(asShiroTUI) == "1" {
		os.Exit(cli.MainWithUI(os.Args[1:], func(ctx context.Context, s cli.Session, o cli.UIOptions) (string, error) {
			res, err := Run(ctx, s, Options{Out: o.Out, HistoryPath: o.HistoryPath, FirstPrompt: o.FirstPrompt,
				StatusLine: o.StatusLine, Notifications: o.Notifications})
			return res.Farewell(), err
		}))
	}
	os.Exit(m.Run())
}

// tmuxPane is shiro running in a tmux pane of its own server.
type tmuxPane struct {
	t      *testing.T
	socket string
}

func (p *tmuxPane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", p.socket}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// send types text literally; keys sends named keys (Enter, Tab, Down).
func (p *tmuxPane) send(text string) { p.tmux("send-keys", "-t", "shiro", "-l", text) }
func (p *tmuxPane) keys(names ...string) {
	p.tmux(append([]string{"send-keys", "-t", "shiro"}, names...)...)
}

// screen is what the pane shows now.
func (p *tmuxPane) screen() string { return p.tmux("capture-pane", "-p", "-t", "shiro") }

// waitFor polls the pane until cond holds: a terminal has no event to wait
// on. The limit only bounds a failure.
func (p *tmuxPane) waitFor(what string, cond func(screen string) bool) string {
	p.t.Helper()
	deadline := time.Now().Add(waitLimit)
	tick := time.NewTicker(30 * time.Millisecond)
	defer tick.Stop()
	for {
		s := p.screen()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("timed out waiting for %s; the pane shows:\n%s", what, s)
		}
		<-tick.C
	}
}

func (p *tmuxPane) waitText(want ...string) string {
	p.t.Helper()
	return p.waitFor(strings.Join(want, ", "), func(s string) bool {
		for _, w := range want {
			if !strings.Contains(s, w) {
				return false
			}
		}
		return true
	})
}

// shiro in a real terminal (tmux), against the fake model server: a custom
// command from .claude/commands runs with its argument, @ completes a path
// with tab, and text typed ahead of an approval prompt lands in the input
// box without answering it.
func TestShiroInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shiro in tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	srv := llmtest.New(t,
		llmtest.Reply{Text: "Reviewed it."},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write_file", Input: `{"path":"notes.txt","content":"news\n"}`}}},
		llmtest.Reply{Text: "Understood, not written."},
		llmtest.Reply{Text: "Queued message answered."},
	)
	home, work := t.TempDir(), t.TempDir()
	writeTree(t, home, map[string]string{".shiro-neko/config.json": fmt.Sprintf(
		`{"provider":"custom-openai","baseURL":%q,"apiKey":"k","model":"fake"}`, srv.URL)})
	writeTree(t, work, map[string]string{
		"src/app.go":                      "package app\n",
		".claude/commands/review.md":      "---\ndescription: Review a file\nargument-hint: [file]\n---\nReview $ARGUMENTS and say so.\n",
		".claude/commands/git/summary.md": "Summarise the history.\n",
	})
	p := startInTmux(t, home, work)
	p.waitText("shiro · custom-openai · fake", "Ask shiro")

	// A custom command from .claude/commands runs with its argument.
	p.send("/review src/app.go")
	p.keys("Enter")
	p.waitText("Reviewed it.")
	if body := string(srv.ModelCalls()[0].Body); !strings.Contains(body, "Review src/app.go and say so.") {
		t.Fatalf("the command's prompt did not reach the model: %.300s", body)
	}

	// @ lists paths; tab completes a folder, then a file in it.
	p.send("look at @sr")
	p.waitText(" @src/", "tab or enter completes")
	p.keys("Tab")
	p.waitText("› look at @src/", " @src/app.go")
	p.keys("Tab")
	// A file ends the word (with a space, which the pane does not show):
	// the picker closes.
	p.waitFor("the file completed", func(s string) bool {
		return strings.Contains(s, "› look at @src/app.go") && !strings.Contains(s, "tab or enter completes")
	})
	p.keys("C-u")
	p.waitFor("an empty input", func(s string) bool { return strings.Contains(s, "Ask shiro") })

	// Text typed on after the message that leads to an approval goes to
	// the input box; it answers nothing.
	p.send("write the news")
	p.keys("Enter")
	p.send("please say yes and no")
	p.waitText("write_file wants to run", "› please say yes and no")
	// The prompt is armed once nobody has typed for a moment.
	p.waitFor("the prompt to arm", func(s string) bool {
		return strings.Contains(s, "y allow once") && !strings.Contains(s, "typing goes to the input box")
	})
	if _, err := os.Stat(filepath.Join(work, "notes.txt")); !os.IsNotExist(err) {
		t.Fatalf("the file was written before anyone answered: %v", err)
	}
	p.send("n")
	p.waitText("denied by user", "Understood, not written.")
	if _, err := os.Stat(filepath.Join(work, "notes.txt")); !os.IsNotExist(err) {
		t.Fatalf("the file was written: %v", err)
	}
	p.send("/exit")
	p.keys("Enter")
}

// startInTmux runs this test binary as shiro-tui in a tmux server of its
// own, in work, with home as its home folder.
func startInTmux(t *testing.T, home, work string) *tmuxPane {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &tmuxPane{t: t, socket: fmt.Sprintf("shiro-test-%d-%s", os.Getpid(), t.Name())}
	p.tmux("-f", "/dev/null", "new-session", "-d", "-s", "shiro", "-x", "120", "-y", "40", "-c", work,
		"env", asShiroTUI+"=1", "SHIRO_HOME="+home, "HOME="+home, "TERM=xterm-256color", exe)
	// The pane runs shiro itself (env executes it). Killing the server
	// only hangs up on it: wait for shiro to have exited, or the temp
	// dirs' removal races with what it writes to its state on the way out.
	exited := pidExit(t, strings.TrimSpace(p.tmux("display-message", "-p", "-t", "shiro", "#{pane_pid}")))
	t.Cleanup(func() {
		_ = exec.Command("tmux", "-L", p.socket, "kill-server").Run()
		exited()
	})
	return p
}

// The status line command of Claude Code's user settings runs in the
// real binary, in the sandbox: its first line, made from the session's JSON, shows in
// place of the built-in line, and it runs again when a turn ends.
func TestStatusLineCommandInTmux(t *testing.T) {
	if testing.Short() {
		t.Skip("starts shiro in tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed")
	}
	srv := llmtest.New(t, llmtest.Reply{Text: "Hello there."})
	home, work := t.TempDir(), t.TempDir()
	script := "#!/bin/sh\nin=$(cat)\nmodel=$(printf '%s' \"$in\" | sed -n 's/.*\"display_name\":\"\\([^\"]*\\)\".*/\\1/p')\n" +
		"cost=$(printf '%s' \"$in\" | sed -n 's/.*\"used_tokens\":\\([0-9]*\\).*/\\1/p')\n" +
		"printf '\\033[35mMINE %s ctx=%s\\033[0m\\nnot shown\\n' \"$model\" \"$cost\"\n"
	writeTree(t, home, map[string]string{
		".shiro-neko/config.json": fmt.Sprintf(`{"provider":"custom-openai","baseURL":%q,"apiKey":"k","model":"fake"}`, srv.URL),
		".claude/settings.json":   fmt.Sprintf(`{"statusLine":{"type":"command","command":"sh %s/statusline.sh"}}`, work),
	})
	// The script lies in the workspace: the sandbox puts a folder of its
	// own over /tmp, where the test's home folder is.
	writeTree(t, work, map[string]string{"statusline.sh": script})
	p := startInTmux(t, home, work)
	first := p.waitText("MINE fake ctx=")
	if strings.Contains(first, "not shown") || strings.Contains(first, "think ") {
		t.Fatalf("more than the command's first line shows, or the built-in line:\n%s", first)
	}
	p.send("hi")
	p.keys("Enter")
	p.waitText("Hello there.")
	p.waitFor("the line to follow the conversation", func(s string) bool {
		return strings.Contains(s, "MINE fake ctx=") && !strings.Contains(s, "MINE fake ctx=0")
	})
	p.send("/exit")
	p.keys("Enter")
}

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, body := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// pidExit opens a process by pid (not a child of ours: tmux started it)
// and returns what blocks until it has exited, through a pidfd, which
// becomes readable then.
func pidExit(t *testing.T, pid string) func() {
	t.Helper()
	n, err := strconv.Atoi(pid)
	if err != nil {
		t.Fatalf("pane pid %q: %v", pid, err)
	}
	fd, err := unix.PidfdOpen(n, 0)
	if err != nil {
		t.Fatalf("open pid %d: %v", n, err)
	}
	return func() {
		defer func() { _ = unix.Close(fd) }()
		fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		for {
			if _, err := unix.Poll(fds, -1); err != unix.EINTR {
				return
			}
		}
	}
}
