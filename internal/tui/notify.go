package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// A desktop notification tells the person that shiro waits for them (a
// turn ended, an approval or a question is open) while they look at
// another window. The terminal's own escape sequence is best, since it
// reaches the desktop the terminal is on, over ssh too; notify-send is
// the fallback on a local desktop.

// notifyMethod is how a notification is sent.
type notifyMethod int

const (
	notifyNone notifyMethod = iota
	notifyOSC9
	notifyOSC777
	notifySend
)

// notifier sends notifications one way. Its zero value sends none.
type notifier struct {
	method notifyMethod
	// tmux wraps the escape sequence in tmux's passthrough, so that it
	// reaches the terminal around tmux.
	tmux bool
	// always notifies whatever the focus; otherwise only once the
	// terminal has said it lost focus.
	always bool
	// send is notify-send's path, and env the environment it gets: only
	// what it needs to reach the desktop.
	send string
	env  []string
}

// notifyTitle heads every notification.
const notifyTitle = "shiro"

// newNotifier reads the notifications key (config.NotificationModes) and,
// for auto and always, the environment to choose how.
func newNotifier(mode string, getenv func(string) string) notifier {
	n := notifier{tmux: getenv("TMUX") != "", always: mode == "always"}
	switch mode {
	case "off":
		return notifier{}
	case "osc9":
		n.method = notifyOSC9
	case "osc777":
		n.method = notifyOSC777
	case "notify-send":
		n.method = notifySend
	default:
		n.method = terminalMethod(getenv)
		if n.method == notifyNone && (getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != "") {
			n.method = notifySend
		}
	}
	if n.method == notifySend {
		if n.send = lookPath("notify-send", getenv("PATH")); n.send == "" {
			return notifier{}
		}
		for _, k := range []string{"PATH", "HOME", "DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR"} {
			if v := getenv(k); v != "" {
				n.env = append(n.env, k+"="+v)
			}
		}
	}
	return n
}

// terminalMethod is the escape sequence the terminal understands, told by
// the variables it sets (which tmux passes on to the shells in it).
func terminalMethod(getenv func(string) string) notifyMethod {
	term, program := getenv("TERM"), getenv("TERM_PROGRAM")
	switch {
	case program == "iTerm.app" || program == "WezTerm" || program == "ghostty" ||
		getenv("LC_TERMINAL") == "iTerm2" || getenv("WEZTERM_PANE") != "" || getenv("GHOSTTY_RESOURCES_DIR") != "" ||
		getenv("KITTY_WINDOW_ID") != "" || term == "xterm-kitty" || term == "xterm-ghostty" || getenv("WT_SESSION") != "":
		return notifyOSC9
	case getenv("KONSOLE_VERSION") != "" || strings.HasPrefix(term, "foot") || strings.HasPrefix(term, "rxvt"):
		return notifyOSC777
	}
	return notifyNone
}

// lookPath finds an executable file called name in the folders of path.
func lookPath(name, path string) string {
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative entry would run whatever the workspace holds
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// sequence is the escape sequence that shows body, wrapped for tmux when
// shiro runs in it; empty for notify-send.
func (n notifier) sequence(body string) string {
	var seq string
	switch n.method {
	case notifyOSC9:
		// "shiro: " first: a body that began with "4;" would read as
		// Windows Terminal's progress sequence.
		seq = ansi.Notify(notifyTitle + ": " + body)
	case notifyOSC777:
		seq = ansi.URxvtExt("notify", notifyTitle, strings.ReplaceAll(body, ";", ","))
	default:
		return ""
	}
	if n.tmux {
		return ansi.TmuxPassthrough(seq)
	}
	return seq
}

// send returns the command that notifies, or nil when nothing should:
// no method, or the terminal is not known to be out of focus.
func (n notifier) notify(ctx context.Context, focus focusState, body string) tea.Cmd {
	if n.method == notifyNone || (!n.always && focus != focusLost) {
		return nil
	}
	body = notifyText(body)
	if n.method != notifySend {
		return tea.Raw(n.sequence(body))
	}
	spec := proc.Spec{Argv: []string{n.send, "--app-name=" + notifyTitle, notifyTitle, body}, Env: n.env, NewSession: true, Timeout: notifySendTimeout}
	return func() tea.Msg {
		// A desktop that cannot show it is no reason to bother the
		// person in the terminal they are not looking at.
		_, _ = proc.Run(ctx, spec)
		return nil
	}
}

// notifySendTimeout bounds notify-send, which waits on the desktop's bus.
const notifySendTimeout = 5 * time.Second

// notifyLen caps a notification's text: it is a nudge, not the answer.
const notifyLen = 100

// notifyText is body as a notification shows it: its first non-empty
// line, no control characters (which would end or extend the escape
// sequence), at most notifyLen characters.
func notifyText(body string) string {
	for l := range strings.SplitSeq(body, "\n") {
		if strings.TrimSpace(l) != "" {
			body = l
			break
		}
	}
	body = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, ansi.Strip(body))
	body = strings.TrimSpace(body)
	if r := []rune(body); len(r) > notifyLen {
		body = string(r[:notifyLen-1]) + "…"
	}
	return body
}

// focusState is whether the terminal has focus, as it last reported.
type focusState int

const (
	focusUnknown focusState = iota // the terminal has not said: taken as focused
	focusHeld
	focusLost
)

// notifyFor is the notification an event calls for: a turn's end, with
// the first line of its answer, or a prompt waiting for the person. An
// approval names the tool and the program only: the whole command line
// may hold a token, and a notification outlives the screen.
func (m *model) notifyFor(e protocol.Event) tea.Cmd {
	var body string
	switch e := e.(type) {
	case protocol.DoneEvent:
		body = m.answer.String()
		if strings.TrimSpace(body) == "" {
			body = "the turn ended"
		}
	case protocol.ApprovalRequestEvent:
		body = "approval needed: " + e.Name
		// "TOKEN=… curl" would put the token first: no assignment is shown.
		if f := strings.Fields(e.Title); len(f) > 0 && e.Kind == protocol.KindExecute && !strings.Contains(f[0], "=") {
			body += " " + filepath.Base(f[0]) + " …"
		}
	case protocol.QuestionEvent:
		body = "question: " + e.Question
	default:
		return nil
	}
	return m.notifier.notify(m.ctx, m.focus, body)
}
