package notebook

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

// TestSchemas holds todo_write's schema to testdata/schemas.golden.json
// (rewrite it with -update and review the diff): members, enum, required
// sets and the refusal of unknown members.
func TestSchemas(t *testing.T) {
	n, _ := Open("", nil)
	tooltest.SchemasGolden(t, []tool.Tool{n.Tool()}, 0)
}

func TestInfo(t *testing.T) {
	n, _ := Open("", nil)
	i := n.Tool().Info()
	if i.Name != "todo_write" || i.Set != tool.SetNone || i.Effect != tool.KeepsState || i.Kind != protocol.KindThink ||
		i.Subject != tool.NoSubject || i.Interactive {
		t.Fatalf("info = %+v", i)
	}
	if i.Description != "Replace your task list. Keep exactly one task in_progress; give blocked tasks a note." ||
		i.Guidance != "todo_write: keep a task list for multi-step work; it is shown to you on every step." {
		t.Fatalf("description %q guidance %q", i.Description, i.Guidance)
	}
	if _, err := tool.NewRegistry(n.Tool()); err != nil {
		t.Fatal(err)
	}
}

func TestPlan(t *testing.T) {
	n, _ := Open("", nil)
	cases := map[string]tool.Plan{
		`{"todos":[]}`: {Title: "0/0 done"},
		`{"todos":[{"content":"read","status":"done"},{"content":"write\nthe test","status":"in_progress"},{"content":"ship","status":"pending"}]}`: {Title: "1/3 done; now: write the test"},
		`{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"}]}`:                                                 {Title: "0/2 done"},
	}
	for in, want := range cases {
		p, err := n.Tool().Prepare(json.RawMessage(in))
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		if got := p.Plan(); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: plan %+v, want %+v", in, got, want)
		}
	}
	if len(n.Tasks()) != 0 {
		t.Fatal("preparing a call changed the list")
	}
}

// The listener is given the new list, and a list it was given is never
// the one the notebook keeps after a later change: updates from many
// goroutines reach it one at a time, in the order they were made.
func TestListenersHearEveryChangeInOrder(t *testing.T) {
	var mu sync.Mutex
	var heard [][]protocol.Task
	var n *Notebook
	n, _ = Open("", func(ev protocol.TasksEvent) {
		todos := ev.Tasks
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, todos)
		// The list a listener is handed is the list kept right now: no
		// later update has overtaken this call.
		if kept := n.Tasks(); !slices.Equal(kept, todos) {
			t.Errorf("listener got %v while the notebook holds %v", todos, kept)
		}
	})
	const writers = 8
	var wg sync.WaitGroup
	for i := range writers {
		wg.Go(func() {
			if err := n.Replace("", []protocol.Task{{Content: fmt.Sprint("task ", i), Status: InProgress}}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(heard) != writers {
		t.Fatalf("listener ran %d times, want %d", len(heard), writers)
	}
	if last := heard[len(heard)-1]; !slices.Equal(last, n.Tasks()) {
		t.Fatalf("last list heard %v, kept %v", last, n.Tasks())
	}
	// The listener's copy is its own.
	heard[0][0].Content = "changed by a listener"
	if n.Tasks()[0].Content == "changed by a listener" {
		t.Fatal("a listener could change the notebook's list")
	}
}

// todo_write's list reaches the session as a TasksEvent with every field,
// and with the op whose turn made the call.
func TestTodoWriteFeedsTheTasksEvent(t *testing.T) {
	var events []protocol.TasksEvent
	n, _ := Open("", func(ev protocol.TasksEvent) { events = append(events, ev) })
	if _, err := write(t, n, `{"todos":[{"content":"a","status":"blocked","note":"waiting"},{"content":"b","status":"in_progress"}]}`); err != nil {
		t.Fatal(err)
	}
	want := []protocol.TasksEvent{{Op: "op-1", Tasks: []protocol.Task{{Content: "a", Status: "blocked", Note: "waiting"}, {Content: "b", Status: "in_progress"}}}}
	if !reflect.DeepEqual(events, want) {
		t.Fatalf("events = %+v, want %+v", events, want)
	}
	if _, err := write(t, n, `{"todos":[{"content":"","status":"done"}]}`); err == nil || len(events) != 1 {
		t.Fatalf("a refused write was announced: %v, %d events", err, len(events))
	}
}
