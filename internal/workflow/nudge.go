package workflow

import (
	"context"
	"os"
	"path/filepath"
	"sync"

	"github.com/shiro-neko/shiro/internal/agent"
)

// MaxNudges is how many reminders one session gets at most: a gentle
// ladder, never an endless nag.
const MaxNudges = 3

// nudges are the ladder's reminders, in the order they are sent.
func nudges() [MaxNudges]string {
	return [MaxNudges]string{
		"reminder: you modified files without updating the project task list (TODO.md). Keep it current: mark what you did.",
		"still no update to TODO.md. The project expects its task list kept current as you work.",
		"last reminder: update TODO.md when you have a moment. This is the final nudge for this session.",
	}
}

// trackerFiles are the files whose presence at the git root means the
// project keeps a task list the agent should maintain.
func trackerFiles() []string { return []string{"TODO.md", "ROADMAP.md"} }

// Nudger reminds the agent to keep the project's task list current. It is
// an agent.TurnObserver: after a turn that wrote files without updating
// the task list or touching the tracker files, in a project whose git root
// has TODO.md or ROADMAP.md, it returns the next reminder of the ladder, at
// most MaxNudges times per session. It runs once per turn, however many
// model calls and approvals the turn took.
type Nudger struct {
	agent.NoHooks // it hears a turn end, and nothing else of it
	// tasks reports the task list's version, which changes whenever the
	// list does; a turn that moved it kept the list current.
	tasks func() uint64

	mu       sync.Mutex
	count    int    // workflowNudgeCount: reminders sent so far
	lastSeen uint64 // the task list's version after the previous turn
}

// NewNudger returns a nudger for one session. tasks reports the task
// list's version (nil: the list is never counted as updated).
func NewNudger(tasks func() uint64) *Nudger {
	n := &Nudger{tasks: tasks}
	n.lastSeen = n.tasksVersion()
	return n
}

func (n *Nudger) tasksVersion() uint64 {
	if n.tasks == nil {
		return 0
	}
	return n.tasks()
}

// Count returns how many reminders were sent (for /workflow: n/3).
func (n *Nudger) Count() int {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.count
}

// Ended implements agent.TurnHooks.
func (n *Nudger) Ended(_ context.Context, e agent.TurnEnd) agent.Ending {
	return agent.Ending{Notices: n.afterTurn(e.TurnSummary)}
}

func (n *Nudger) afterTurn(t agent.TurnSummary) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	version := n.tasksVersion()
	updated := version != n.lastSeen
	n.lastSeen = version
	if updated || !needsNudge(t) {
		return nil
	}
	if n.count >= MaxNudges {
		return nil
	}
	msg := nudges()[n.count]
	n.count++
	return []string{msg}
}

// needsNudge decides on one turn. The tracker files are looked for now,
// not once per session, so a TODO.md created mid-session counts.
func needsNudge(t agent.TurnSummary) bool {
	if len(t.FilesWritten) == 0 || t.Interrupted {
		return false
	}
	root := GitRoot(t.Cwd)
	if root == "" {
		return false
	}
	tracked := false
	for _, name := range trackerFiles() {
		path := filepath.Join(root, name)
		if wroteFile(t, path) {
			return false // the agent did update the tracker, by hand
		}
		if _, err := os.Stat(path); err == nil {
			tracked = true
		}
	}
	return tracked
}

// wroteFile reports whether the turn wrote path. Written paths are as the
// model gave them: relative ones are taken from the workspace root.
func wroteFile(t agent.TurnSummary, path string) bool {
	for _, p := range t.FilesWritten {
		if !filepath.IsAbs(p) {
			p = filepath.Join(t.Cwd, p)
		}
		if filepath.Clean(p) == path {
			return true
		}
	}
	return false
}
