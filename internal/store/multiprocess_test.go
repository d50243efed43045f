package store

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// helperSteps is how many steps each helper process writes.
const helperSteps = 60

// TestHelperProcess is not a test: it is a second shiro writing to the
// store, started by TestTwoProcessesShareOneDatabase. It waits for a line
// on stdin so that both helpers start writing at the same moment.
func TestHelperProcess(t *testing.T) {
	path, name := os.Getenv("STORE_HELPER_DB"), os.Getenv("STORE_HELPER_NAME")
	if path == "" {
		t.Skip("runs only as a helper process")
	}
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		t.Fatal(err)
	}
	s := New(path, Options{})
	defer s.Close()
	ctx := context.Background()
	own := Head{ID: "own-" + name, Cwd: "/project", Model: name}
	shared := Head{ID: "shared", Cwd: "/project"}
	for i := range helperSteps {
		if err := s.Append(ctx, own, user(fmt.Sprintf("%s step %d", name, i))); err != nil {
			t.Fatalf("own step %d: %v", i, err)
		}
		if err := s.Append(ctx, shared, user(fmt.Sprintf("%s shared %d", name, i))); err != nil {
			t.Fatalf("shared step %d: %v", i, err)
		}
		if err := s.Prompts("/project").Add(ctx, fmt.Sprintf("%s prompt %d", name, i)); err != nil {
			t.Fatalf("prompt %d: %v", i, err)
		}
		if i%25 == 0 {
			if _, err := s.List(ctx, ListOptions{Cwd: "/project"}); err != nil {
				t.Fatalf("list: %v", err)
			}
		}
	}
}

// TestTwoProcessesShareOneDatabase runs two real processes that create the
// database together (both migrate a file that does not exist yet) and
// then write to it at once: each to its own session, both to one shared
// session and to one prompt history. Nothing may fail, be lost or be
// duplicated, and the file must pass SQLite's integrity check.
func TestTwoProcessesShareOneDatabase(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two processes")
	}
	path := filepath.Join(t.TempDir(), "sessions.db")
	var helpers []*exec.Cmd
	var gos []io.WriteCloser
	for _, name := range []string{"a", "b"} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
		cmd.Env = append(os.Environ(), "STORE_HELPER_DB="+path, "STORE_HELPER_NAME="+name)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout, cmd.Stderr = &testWriter{t: t, name: name}, &testWriter{t: t, name: name}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		helpers = append(helpers, cmd)
		gos = append(gos, stdin)
	}
	for _, g := range gos {
		if _, err := io.WriteString(g, "go\n"); err != nil {
			t.Fatal(err)
		}
		_ = g.Close()
	}
	for i, h := range helpers {
		if err := h.Wait(); err != nil {
			t.Fatalf("helper %d: %v", i, err)
		}
	}

	s := New(path, Options{})
	defer s.Close()
	ctx := context.Background()
	for _, name := range []string{"a", "b"} {
		snap, err := s.Load(ctx, "own-"+name)
		if err != nil {
			t.Fatal(err)
		}
		if len(snap.History) != helperSteps {
			t.Fatalf("session of %s: %d messages, want %d", name, len(snap.History), helperSteps)
		}
		for i, m := range snap.History {
			if want := fmt.Sprintf("%s step %d", name, i); m.PlainText() != want {
				t.Fatalf("session of %s, message %d: %q, want %q", name, i, m.PlainText(), want)
			}
		}
	}
	shared, err := s.Load(ctx, "shared")
	if err != nil {
		t.Fatal(err)
	}
	next := map[string]int{}
	for _, m := range shared.History {
		var name string
		var i int
		if _, err := fmt.Sscanf(m.PlainText(), "%s shared %d", &name, &i); err != nil {
			t.Fatalf("shared message %q: %v", m.PlainText(), err)
		}
		if i != next[name] {
			t.Fatalf("shared session: %s's step %d came where %d was due", name, i, next[name])
		}
		next[name]++
	}
	if next["a"] != helperSteps || next["b"] != helperSteps || shared.Session.Messages != 2*helperSteps {
		t.Fatalf("shared session: %v, %d counted", next, shared.Session.Messages)
	}
	prompts, err := s.Prompts("/project").Load(ctx)
	if err != nil || len(prompts) != min(2*helperSteps, PromptLimit) {
		t.Fatalf("prompt history: %d entries, %v", len(prompts), err)
	}
	db, _ := s.conn(ctx)
	var check string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity check: %q %v", check, err)
	}
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q %v", mode, err)
	}
}

// testWriter passes a helper's output to the test log.
type testWriter struct {
	t    *testing.T
	name string
}

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Logf("helper %s: %s", w.name, strconv.Quote(string(p)))
	return len(p), nil
}
