package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"charm.land/bubbles/v2/spinner"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/app"
	"github.com/shiro-neko/shiro/internal/hooks"
	"github.com/shiro-neko/shiro/internal/llm"
)

// model is the Bubble Tea model of the whole UI. It is only touched on the
// program's goroutine; everything that happens elsewhere (the turn, the
// approver, background commands) reaches it through the inbox.
type model struct {
	ctx      context.Context
	app      *app.App
	approver *Approver
	box      *inbox
	opts     Options

	st    styles
	md    *markdown
	tr    *transcript
	input textarea.Model
	spin  spinner.Model
	hist  *history

	width, height int
	// offset is the first transcript line shown when follow is off; with
	// follow on the view sticks to the newest line.
	offset int
	follow bool

	turn    *turnState
	turnSeq int
	turns   sync.WaitGroup // running turn goroutines
	queue   []string

	approval   *approvalPrompt
	question   *questionPrompt // the ask tool's, drawn under its call
	questionAt *entry          // that call's transcript entry
	pending    []pendingPrompt // requests that arrived while one was open
	hookQueue  []hooks.Status
	hookPrompt *hookPrompt
	picker     *picker
	confirm    *confirmPrompt

	menuSel    int
	menuHidden bool // esc closed the menu for the current input
	reasoning  bool // the reasoning view (ctrl-r)
	background int  // running background commands
	quitting   bool
}

// turnState is the running turn.
type turnState struct {
	id      int
	cancel  context.CancelFunc
	started time.Time
	// bash is the call ID of the foreground bash call, if one runs;
	// bashStopped is set once ctrl-c has stopped it.
	bash        string
	bashStopped bool
	aborted     bool
}

func newModel(ctx context.Context, a *app.App, approver *Approver, opts Options) *model {
	m := &model{
		ctx: ctx, app: a, approver: approver, box: approver.box, opts: opts,
		st: newStyles(), md: newMarkdown(), tr: newTranscript(), follow: true,
		hist: loadHistory(opts.HistoryPath),
	}
	m.input = newInput()
	m.spin = spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(m.st.statusKey))
	m.width, m.height = 80, 24
	m.layout()
	m.welcome()
	m.hookQueue = hooksToReview(a.Hooks)
	m.nextHookPrompt()
	if p := strings.TrimSpace(opts.FirstPrompt); p != "" {
		m.queue = append(m.queue, p)
	}
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

// welcome opens the transcript with what this session is and, without an
// API key, what to do about it.
func (m *model) welcome() {
	s := m.app.Loaded.Settings
	m.note(noteInfo, fmt.Sprintf("shiro · %s · %s\n%s\n/help lists commands · esc interrupts · ctrl-c quits",
		s.Preset.Label, modelName(m), m.app.Env.Root))
	for _, w := range m.app.Loaded.Warnings() {
		m.note(noteNotice, w)
	}
	for _, p := range m.app.Problems {
		m.note(noteNotice, p)
	}
	if m.hist.broken != nil {
		m.note(noteNotice, m.hist.broken.Error()+" (history is kept in memory only this session)")
	}
}

func modelName(m *model) string {
	if id := m.app.Session.Config().Model; id != "" {
		return id
	}
	return "(no model set)"
}

// needsKey reports whether prompts are refused for want of an API key.
func (m *model) needsKey() bool { return m.app.Loaded.Settings.NeedsKey() }

func (m *model) note(kind noteKind, text string) { m.tr.add(&noteItem{kind: kind, text: text}) }

// Init implements tea.Model.
func (m *model) Init() tea.Cmd {
	return tea.Batch(m.listen(), tea.RequestBackgroundColor, bgTick(), m.drainQueue())
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

// bgTickMsg refreshes the background command count now and then: a
// command can end without printing anything.
type bgTickMsg struct{}

func bgTick() tea.Cmd {
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return bgTickMsg{} })
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
		return m, tea.Batch(cmd, m.listen())
	case spinner.TickMsg:
		if m.turn == nil {
			return m, nil
		}
		var cmd tea.Cmd
		m.spin, cmd = m.spin.Update(msg)
		return m, cmd
	case bgTickMsg:
		m.countBackground()
		return m, bgTick()
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	case tea.PasteMsg:
		if m.question != nil && m.approval == nil {
			m.question.paste(msg)
			m.touchQuestion()
			return m, nil
		}
		if m.modalOpen() {
			return m, nil
		}
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		m.afterInputChange()
		return m, cmd
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			m.scrollBy(-3)
		case tea.MouseWheelDown:
			m.scrollBy(3)
		}
		return m, nil
	case commandResultMsg:
		return m, msg.apply(m)
	}
	return m, nil
}

// commandResultMsg carries the outcome of a command that ran off the
// program's goroutine (listing models, stopping a background command).
type commandResultMsg struct{ apply func(*model) tea.Cmd }

func (m *model) countBackground() {
	bg := m.app.Background()
	if bg == nil {
		m.background = 0
		return
	}
	n := 0
	for _, j := range bg.List() {
		if j.Running {
			n++
		}
	}
	m.background = n
}

// modalOpen reports whether a prompt or picker has the keyboard.
func (m *model) modalOpen() bool {
	return m.promptOpen() || m.hookPrompt != nil || m.picker != nil || m.confirm != nil
}

// usage is the session's token count so far.
func (m *model) usage() llm.Usage { return m.app.Session.Usage() }
