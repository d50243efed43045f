package app_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// With continueWhileTodos, a model that ends its turn while its task list
// has unfinished tasks is sent back to them, at most maxTurns times for
// one message, and the request says which task is next. Without the
// setting the turn ends where the model ends it.
func TestUnfinishedTasksSendTheModelBackToWork(t *testing.T) {
	todos := `{"todos":[{"content":"write the parser","status":"in_progress"},{"content":"test it","status":"pending"},{"content":"ask about the API","status":"blocked"}]}`
	replies := func() []llmtest.Reply {
		return []llmtest.Reply{
			{ToolCalls: []llmtest.ToolCall{{ID: "t1", Name: "todo_write", Input: todos}}},
			{Text: "Stopping here."},
			{Text: "Still stopping."},
			{Text: "Really stopping."},
		}
	}
	work, home := t.TempDir(), t.TempDir()
	// autoLearn off: the turn's eight messages would make the learner's
	// call one more on the server.
	mkfile(t, filepath.Join(home, ".shiro-neko", "config.json"), `{"continueWhileTodos": {"maxTurns": 2}, "autoLearn": false}`)
	srv := llmtest.New(t, replies()...)
	a := openIn(t, work, home, srv, true)
	for range a.Session.Send(t.Context(), "build the parser") {
	}
	calls := srv.ModelCalls()
	if len(calls) != 4 {
		t.Fatalf("%d model calls, want 4 (the turn, then two continuations)", len(calls))
	}
	third := string(calls[2].Body)
	if !strings.Contains(third, `2 unfinished task(s); the next is \"write the parser\"`) || !strings.Contains(third, "sent back 1 of 2 times") {
		t.Fatalf("the continuation is not in the request: %.2000s", third[max(0, len(third)-2000):])
	}
	if last := string(calls[3].Body); !strings.Contains(last, "sent back 2 of 2 times") {
		t.Fatalf("the second continuation is not in the last request")
	}

	// Off by default.
	off := llmtest.New(t, replies()...)
	b := openIn(t, t.TempDir(), t.TempDir(), off, true)
	for range b.Session.Send(t.Context(), "build the parser") {
	}
	if n := len(off.ModelCalls()); n != 2 {
		t.Fatalf("%d model calls without the setting, want 2", n)
	}
}

// A task list the model changed reaches the front end with the id of the
// op whose turn changed it.
func TestTaskListEventCarriesItsTurnsOp(t *testing.T) {
	srv := llmtest.New(t,
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "t1", Name: "todo_write", Input: `{"todos":[{"content":"write the parser","status":"in_progress"}]}`}}},
		llmtest.Reply{Text: "On it."},
	)
	home := t.TempDir()
	mkfile(t, filepath.Join(home, ".shiro-neko", "config.json"), `{"autoLearn": false}`)
	a := openIn(t, t.TempDir(), home, srv, true)
	op, err := a.Session.Submit(protocol.UserTurn{Text: "build the parser"})
	if err != nil || op == "" {
		t.Fatalf("submit: id %q, %v", op, err)
	}
	var tasks []protocol.TasksEvent
	for e := range a.Session.Events() {
		if ev, ok := e.(protocol.TasksEvent); ok {
			tasks = append(tasks, ev)
		}
		if done, ok := e.(protocol.DoneEvent); ok && done.Op == op {
			break
		}
	}
	if len(tasks) != 1 || tasks[0].Op != op || len(tasks[0].Tasks) != 1 || tasks[0].Tasks[0].Content != "write the parser" {
		t.Fatalf("task events %+v, want one with op %q", tasks, op)
	}
}
