package lsp

import (
	"context"
	"strings"
	"syscall"
	"testing"
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
