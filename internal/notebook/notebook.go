// Package notebook keeps the agent's task list: the todo_write tool replaces
// it, the prompt shows it on every step, and it is saved per project so it
// survives restarts.
package notebook

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/shiro-neko/shiro/internal/fsutil"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// The states of a protocol.Task, the one task type from the tool's input
// to the front ends and the session store.
const (
	Pending    = "pending"
	InProgress = "in_progress"
	Done       = "done"
	Blocked    = "blocked"
)

func mark(status string) string {
	switch status {
	case InProgress:
		return "[~]"
	case Done:
		return "[x]"
	case Blocked:
		return "[!]"
	}
	return "[ ]"
}

// Notebook holds the task list. It is safe for concurrent use.
type Notebook struct {
	path     string // "" keeps the list in memory only
	onChange func(protocol.TasksEvent)
	version  atomic.Uint64

	// update is held for a whole Replace, the listener included, so that
	// listeners hear of updates one at a time and in the order they were
	// made, and the list a listener is given is the list kept until it
	// returns. mu guards todos alone, so readers never wait on a listener.
	update sync.Mutex
	mu     sync.Mutex
	todos  []protocol.Task
}

// Open loads the task list saved at path (missing is empty). onChange, if
// not nil, runs after every update with the event the session publishes:
// a copy of the new list, and the op that changed it. Calls never overlap
// and come in update order.
func Open(path string, onChange func(protocol.TasksEvent)) (*Notebook, error) {
	n := &Notebook{path: path, onChange: onChange}
	if path == "" {
		return n, nil
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return n, nil
	}
	if err != nil {
		return nil, fmt.Errorf("task list: %w", err)
	}
	todos, err := decode(data)
	if err != nil {
		return nil, fmt.Errorf("task list %s: %v; fix it or move it aside to start a new list", path, err)
	}
	n.todos = todos
	return n, nil
}

// decode parses a saved task list and checks it as todo_write would.
func decode(data []byte) ([]protocol.Task, error) {
	var todos []protocol.Task
	if err := json.Unmarshal(data, &todos); err != nil {
		return nil, fmt.Errorf("not a JSON array of tasks (%v)", err)
	}
	if err := validate(todos); err != nil {
		return nil, err
	}
	return todos, nil
}

// validate checks every task's status and content.
func validate(todos []protocol.Task) error {
	for i, t := range todos {
		switch t.Status {
		case Pending, InProgress, Done, Blocked:
		default:
			return fmt.Errorf("todo %d: status must be pending, in_progress, done or blocked, not %q", i+1, t.Status)
		}
		if strings.TrimSpace(t.Content) == "" {
			return fmt.Errorf("todo %d: content is empty", i+1)
		}
	}
	return nil
}

// Tasks returns a copy of the list.
func (n *Notebook) Tasks() []protocol.Task {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]protocol.Task(nil), n.todos...)
}

// Replace sets the whole list and saves it; op is the id of the op whose
// turn changed it, or empty.
func (n *Notebook) Replace(op string, todos []protocol.Task) error {
	if err := validate(todos); err != nil {
		return err
	}
	todos = append([]protocol.Task{}, todos...)
	n.update.Lock()
	defer n.update.Unlock()
	// Saved first: a list that could not be saved is not shown either, so
	// the prompt never disagrees with what the next session will load.
	if n.path != "" {
		data, _ := json.MarshalIndent(todos, "", "  ")
		if err := fsutil.WriteFileAtomic(n.path, append(data, '\n'), 0o600); err != nil {
			return fmt.Errorf("saving the task list: %w", err)
		}
	}
	n.mu.Lock()
	n.todos = todos
	n.version.Add(1)
	n.mu.Unlock()
	if n.onChange != nil {
		n.onChange(protocol.TasksEvent{Op: op, Tasks: slices.Clone(todos)})
	}
	return nil
}

// Version moves after every update, so the prompt knows when to render
// the list again and the workflow nudger when it was last touched.
func (n *Notebook) Version() uint64 { return n.version.Load() }

// Counts returns done, total and blocked.
func (n *Notebook) Counts() (done, total, blocked int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, t := range n.todos {
		switch t.Status {
		case Done:
			done++
		case Blocked:
			blocked++
		}
	}
	return done, len(n.todos), blocked
}

// Render is the list as the prompt shows it, or "" when empty.
func (n *Notebook) Render() string {
	todos := n.Tasks()
	if len(todos) == 0 {
		return ""
	}
	done, total, blocked := n.Counts()
	var b strings.Builder
	fmt.Fprintf(&b, "Your task list (%d/%d done, %d blocked). Keep it current with todo_write:\n", done, total, blocked)
	b.WriteString(renderLines(todos))
	return strings.TrimRight(b.String(), "\n")
}

func renderLines(todos []protocol.Task) string {
	var b strings.Builder
	for _, t := range todos {
		b.WriteString(mark(t.Status) + " " + t.Content)
		if t.Note != "" {
			b.WriteString("  (" + t.Note + ")")
		}
		b.WriteString("\n")
	}
	return b.String()
}

// warnings point out a list that will mislead: several tasks in progress,
// none in progress while work remains, or a block without a reason.
func warnings(todos []protocol.Task) []string {
	var out []string
	inProgress, open := 0, 0
	for _, t := range todos {
		switch t.Status {
		case InProgress:
			inProgress++
			open++
		case Pending:
			open++
		case Blocked:
			if t.Note == "" {
				out = append(out, fmt.Sprintf("%q is blocked with no note: say what it is waiting for.", t.Content))
			}
		}
	}
	if inProgress > 1 {
		out = append(out, fmt.Sprintf("%d tasks are in_progress: keep exactly one in progress.", inProgress))
	}
	if inProgress == 0 && open > 0 {
		out = append(out, "no task is in_progress while work remains: mark the one you are doing.")
	}
	return out
}
