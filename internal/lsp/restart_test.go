package lsp

import (
	"context"
	"strings"
	"syscall"
	"testing"
	"time"
)

// kill ends the running server's process group from outside, as a crash
// or the OOM killer would, and waits for shiro to see it end.
func kill(t *testing.T, m *Manager) {
	t.Helper()
	sl := m.slots[0]
	sl.mu.Lock()
	srv := sl.srv
	sl.mu.Unlock()
	if srv == nil {
		t.Fatal("no server is running to kill")
	}
	if err := syscall.Kill(-srv.proc.PID(), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-srv.proc.Done()
	<-srv.life.Done()
}

// A server killed mid-session is restarted once, and the edit still gets
// its diagnostics; killed again, it is reported once, clearly, and the
// calls after go on without it.
func TestKilledServerIsRestartedOnceThenReported(t *testing.T) {
	root := fixture(t, "go")
	m := needServer(t, "gopls", root)
	const clean = "package shapes\n\n// Area is the area of a rectangle.\nfunc Area(w, h int) int {\n\treturn w * h\n}\n"
	const broken = "package shapes\n\n// Area is the area of a rectangle.\nfunc Area(w, h int) int {\n\treturn w * h * \"x\"\n}\n"
	if got := change(t, m, root, "shapes/shapes.go", clean); got != "" {
		t.Fatalf("a clean edit reported:\n%s", got)
	}
	kill(t, m)
	got := change(t, m, root, "shapes/shapes.go", broken)
	if !strings.Contains(got, "gopls exited (signal: killed); it was restarted") {
		t.Fatalf("the edit after the first kill does not say the server was restarted:\n%s", got)
	}
	if !strings.Contains(got, "shapes/shapes.go:5:") {
		t.Fatalf("the restarted server's report is missing from the edit's result:\n%s", got)
	}
	kill(t, m)
	got = change(t, m, root, "shapes/shapes.go", clean)
	if !strings.Contains(got, "gopls exited (signal: killed)") || !strings.Contains(got, "not restarted again") {
		t.Fatalf("the edit after the second kill does not report the server off:\n%s", got)
	}
	if got := change(t, m, root, "shapes/shapes.go", broken); got != "" {
		t.Fatalf("the failure was reported again, or a dead server reported:\n%s", got)
	}
	_, err := m.Definition(context.Background(), Position{Path: "main.go", Line: 10, Symbol: "Area"})
	if err == nil || !strings.Contains(err.Error(), "not restarted again") {
		t.Fatalf("definition on the dead server: %v", err)
	}
	if st := m.Status()[0]; st.State != Failed || st.Restarts != 1 {
		t.Fatalf("status after two deaths: %+v", st)
	}
}

// A server that never answers costs an edit its start deadline, not the
// turn: the edit's result says why there is no report, once, and the
// next edit does not wait again.
func TestHungServerCostsTheDeadlineOnce(t *testing.T) {
	root := t.TempDir()
	sh, err := LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	mute := Available{Spec: Spec{Name: "mute", Command: "sh", Args: []string{"-c", "cat >/dev/null"}, Files: []string{"*.txt"}}, Path: sh}
	m := New(Options{Root: root, Servers: []Available{mute}, StartTimeout: 50 * time.Millisecond})
	t.Cleanup(m.Close)
	got := change(t, m, root, "a.txt", "one\n")
	if !strings.Contains(got, "initializing mute") || !strings.Contains(got, "deadline exceeded") {
		t.Fatalf("the edit's result does not say the server did not answer:\n%s", got)
	}
	if got := change(t, m, root, "a.txt", "two\n"); got != "" {
		t.Fatalf("the second edit waited or reported again:\n%s", got)
	}
	if st := m.Status()[0]; st.State != Failed || !strings.Contains(st.Failure, "initializing mute") {
		t.Fatalf("status: %+v", st)
	}
}
