package notebook

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
)

func write(t *testing.T, n *Notebook, input string) (string, error) {
	t.Helper()
	res, err := tooltest.Invoke(t.Context(), n.Tool(), json.RawMessage(input), tool.Runtime{CallID: "c", Op: "op-1"})
	return res.Output, err
}

func TestRenderShowsMarksCountsAndNotes(t *testing.T) {
	n, _ := Open("", nil)
	if n.Render() != "" {
		t.Fatal("an empty list renders nothing, so the prompt has no task list section")
	}
	err := n.Replace("", []protocol.Task{
		{Content: "read the code", Status: Done},
		{Content: "write the test", Status: InProgress},
		{Content: "ask for the key", Status: Blocked, Note: "waiting on ops"},
		{Content: "ship", Status: Pending},
	})
	if err != nil {
		t.Fatal(err)
	}
	want := "Your task list (1/4 done, 1 blocked). Keep it current with todo_write:\n" +
		"[x] read the code\n[~] write the test\n[!] ask for the key  (waiting on ops)\n[ ] ship"
	if got := n.Render(); got != want {
		t.Fatalf("render =\n%s\nwant\n%s", got, want)
	}
}

func TestTodoWriteReplacesTheListAndWarns(t *testing.T) {
	changes := 0
	n, _ := Open("", func(protocol.TasksEvent) { changes++ })
	out, err := write(t, n, `{"todos":[{"content":"a","status":"in_progress"},{"content":"b","status":"in_progress"},{"content":"c","status":"blocked"}]}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Task list updated: 0/3 done.", "[~] a", "warning: \"c\" is blocked with no note", "warning: 2 tasks are in_progress: keep exactly one in progress."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, _ = write(t, n, `{"todos":[{"content":"a","status":"done"},{"content":"b","status":"pending"}]}`)
	if !strings.Contains(out, "warning: no task is in_progress while work remains") || len(n.Tasks()) != 2 {
		t.Fatalf("second write:\n%s", out)
	}
	out, _ = write(t, n, `{"todos":[{"content":"a","status":"done"}]}`)
	if strings.Contains(out, "warning") {
		t.Fatalf("a finished list has nothing to warn about:\n%s", out)
	}
	if changes != 3 || n.Version() != 3 {
		t.Fatalf("onChange ran %d times and the version is %d, want each once per write", changes, n.Version())
	}
}

func TestTodoWriteRejectsBadInput(t *testing.T) {
	n, _ := Open("", nil)
	cases := map[string]string{
		// The schema's enum refuses an unknown status before the call runs.
		`{"todos":[{"content":"a","status":"finished"}]}`:          "status: enum: finished does not equal any of: [pending in_progress done blocked]",
		`{"todos":[{"content":"  ","status":"done"}]}`:             "todo 1: content is empty",
		`{"todos":[{"content":"a","status":"done","when":"now"}]}`: `unexpected additional properties ["when"]`,
		`{"todos":`: "invalid arguments",
		`{}`:        `missing properties: ["todos"]`,
	}
	for in, want := range cases {
		_, err := write(t, n, in)
		var ie *tool.InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want an input error saying %q", in, err, want)
		}
	}
	if len(n.Tasks()) != 0 {
		t.Fatal("a rejected write changed the list")
	}
}

func TestTheListSurvivesARestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notebook", "p.json")
	n, err := Open(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := write(t, n, `{"todos":[{"content":"a","status":"in_progress","note":"half way"}]}`); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	var onDisk []map[string]string
	if err := json.Unmarshal(data, &onDisk); err != nil || onDisk[0]["note"] != "half way" || onDisk[0]["status"] != "in_progress" {
		t.Fatalf("file = %s (%v)", data, err)
	}
	again, err := Open(path, nil)
	if err != nil || again.Render() != n.Render() {
		t.Fatalf("after restart: %q, %v", again.Render(), err)
	}
	for _, bad := range []string{"{broken", `[{"content":"a","status":"later"}]`, `[{"content":"","status":"done"}]`} {
		if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := Open(path, nil); err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "move it aside") {
			t.Errorf("%s: error %v", bad, err)
		}
	}
}

// FuzzDecode feeds arbitrary saved task lists to the loader: what it
// accepts, todo_write would have accepted, and it renders.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(`[]`))
	f.Add([]byte(`[{"content":"a","status":"in_progress","note":"n"}]`))
	f.Add([]byte(`[{"content":"a","status":"DONE"}]`))
	f.Add([]byte(`{"todos":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		todos, err := decode(data)
		if err != nil {
			return
		}
		if validate(todos) != nil {
			t.Fatalf("accepted an invalid list: %+v", todos)
		}
		n, _ := Open("", nil)
		if err := n.Replace("", todos); err != nil {
			t.Fatalf("a loaded list cannot be written back: %v", err)
		}
		if len(todos) > 0 && !strings.HasPrefix(n.Render(), "Your task list (") {
			t.Fatalf("render = %q", n.Render())
		}
	})
}
