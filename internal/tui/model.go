package tui

import (
	"context"
	"os"
	"strings"
	"time"

	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// model is the Bubble Tea model of the whole UI. It is only touched on the
// program's goroutine; the session's events reach it through the inbox,
// and everything it asks of the session is an op given to Submit.
type model struct {
	ctx  context.Context
	s    Session
	box  *inbox
	opts Options

	st    styles
	md    *markdown
	tr    *transcript
	input textarea.Model
	spin  spinner.Model
	hist  *history

	now func() time.Time

	width, height int
	// offset is the first transcript line shown when follow is off; with
	// follow on the view sticks to the newest line.
	offset int
	follow bool

	// What the session said about itself.
	info       protocol.SessionEvent
	welcomed   bool // the first SessionEvent arrived and the welcome shows
	commands   []protocol.CommandInfo
	usage      protocol.UsageEvent // the session's total, as it last reported it
	header     *entry              // the welcome's first line: provider and model
	background int                 // background commands still running
	tasks      []protocol.Task

	turn *turnState
	// pending is input the session took but has not started (turns) or
	// answered (commands) because a turn runs: the queue the person sees.
	pending []sentInput
	// firstPrompt waits until the session is described and no choice is
	// open (Options.FirstPrompt).
	firstPrompt string

	approval   *approvalPrompt
	question   *questionPrompt  // the ask tool's, drawn under its call
	questionAt *entry           // that call's transcript entry
	requests   []protocol.Event // approvals and questions behind the open one
	// planEdit is the plan question whose plan the person is editing in
	// the input box; the session still waits for its answer.
	planEdit *protocol.QuestionEvent
	// guard keeps keys typed around the moment a prompt opens out of it.
	guard   promptGuard
	pickers []*picker // choices offered by commands; the first is open

	// mention is the @ picker's state; pastes are the long pastes the
	// input shows folded, by their placeholder.
	mention mentionState
	pastes  map[string]string
	// images are the pictures pasted as paths, by the placeholder the
	// input shows for each; sending are those the next prompt carries.
	images  map[string]protocol.Image
	sending []protocol.Image
	// lastCtrlC is when ctrl-c last stopped something: a second press
	// within ctrlCWindow quits.
	lastCtrlC time.Time
	// answer is the assistant's text of the last turn, for /copy.
	answer strings.Builder
	// browsing is set while up/down walk the prompt history, so a recalled
	// slash command does not open the menu and take the next up.
	browsing bool

	// status is the status line command's state; notifier and focus
	// decide the desktop notifications.
	status   statusCommand
	notifier notifier
	focus    focusState

	menuSel    int
	menuHidden bool // esc closed the menu for the current input
	reasoning  bool // the reasoning view (ctrl-r)
	expanded   bool // tool output unfolded (ctrl-o)
	quitting   bool
	ended      bool // the session closed its events
}

// turnState is the running turn, from its TurnStartEvent to its DoneEvent.
type turnState struct {
	id      int
	started time.Time
	// exec is the call ID of the running command (a call of kind execute),
	// if one runs; execStopped is set once ctrl-c has stopped it.
	exec        string
	execStopped bool
	aborted     bool
}

func newModel(ctx context.Context, s Session, box *inbox, opts Options) *model {
	m := &model{
		ctx: ctx, s: s, box: box, opts: opts, now: opts.Clock, pastes: map[string]string{}, images: map[string]protocol.Image{},
		st: newStyles(), md: newMarkdown(), tr: newTranscript(), follow: true,
		hist: openHistory(ctx, opts), firstPrompt: opts.FirstPrompt,
	}
	if m.now == nil {
		m.now = time.Now
	}
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	m.notifier = newNotifier(opts.Notifications, getenv)
	m.input = newInput()
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(m.st.statusKey))
	m.width, m.height = 80, 24
	m.layout()
	return m
}

func newInput() textarea.Model {
	in := textarea.New()
	in.Prompt = "› "
	in.ShowLineNumbers = false
	in.Placeholder = "Ask shiro, or type / for commands"
	in.DynamicHeight = true
	in.MinHeight = 1
	in.MaxHeight = 8
	in.MaxContentHeight = 10000
	in.CharLimit = 0
	in.KeyMap.InsertNewline.SetKeys("ctrl+j", "alt+enter", "shift+enter")
	// PgUp/PgDn scroll the transcript, not the input.
	in.KeyMap.PageUp.SetEnabled(false)
	in.KeyMap.PageDown.SetEnabled(false)
	st := textarea.DefaultDarkStyles()
	st.Cursor.Blink = false
	st.Focused.CursorLine = st.Focused.Base
	in.SetStyles(st)
	in.Focus()
	return in
}

func (m *model) note(kind noteKind, text string) { m.tr.add(&noteItem{kind: kind, text: text}) }

// Init implements tea.Model.
func (m *model) Init() tea.Cmd {
	return tea.Batch(m.listen(), tea.RequestBackgroundColor, m.statusChanged())
}

// listen waits for the next batch from the inbox.
func (m *model) listen() tea.Cmd {
	box, ctx := m.box, m.ctx
	return func() tea.Msg {
		if b := box.take(ctx); b != nil {
			return b
		}
		return nil
	}
}

// Update implements tea.Model.
func (m *model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		m.tr.invalidateAll()
		return m, nil
	case tea.BackgroundColorMsg:
		m.md.setDark(msg.IsDark())
		m.tr.invalidateAll()
		return m, nil
	case *inboxMsg:
		cmd := m.applyInbox(msg)
		if m.ended {
			return m, cmd
		}
		return m, tea.Batch(cmd, m.listen())
	case spinner.TickMsg:
		if m.turn == nil {
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	case clipboardImageMsg:
		m.clipboardImage(msg)
		return m, nil
	case tea.PasteMsg:
		switch {
		case m.guarded():
			// Pasted as a prompt opened: it was meant for the input too.
			return m, tea.Batch(m.divert(), m.paste(msg))
		case m.question != nil && m.approval == nil:
			m.question.paste(msg)
			m.touchQuestion()
			return m, nil
		case m.approval == nil && len(m.pickers) > 0:
			m.pickers[0].paste(msg)
			return m, nil
		}
		// A paste cannot answer an approval: it goes to the input.
		return m, m.paste(msg)
	case statusDue:
		return m, m.runStatus()
	case statusDone:
		return m, m.statusFinished(msg)
	case tea.FocusMsg:
		m.focus = focusHeld
		return m, nil
	case tea.BlurMsg:
		m.focus = focusLost
		return m, nil
	case guardTick:
		// The guard may have ended: the prompt shows its answers again.
		m.touchQuestion()
		return m, nil
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.scrollBy(-3)
		case tea.MouseWheelDown:
			m.scrollBy(3)
		}
		return m, nil
	}
	return m, nil
}

// modalOpen reports whether a prompt or picker has the keyboard.
func (m *model) modalOpen() bool { return m.promptOpen() || len(m.pickers) > 0 }
