package cli

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// A stream-json client drives a session the way a person does: it reads an
// approval request from stdout and answers it on stdin, and the write it
// allowed happens; a second request it denies never writes.
func TestStreamJSONClientAnswersApprovals(t *testing.T) {
	work := t.TempDir()
	home := t.TempDir()
	cassette := filepath.Join(t.TempDir(), "c.jsonl")
	lines := []string{
		`{"parts":[{"type":"tool-call","id":"w1","name":"write_file","input":{"path":"yes.txt","content":"allowed\n"}},{"type":"finish","reason":"tool-use"}]}`,
		`{"parts":[{"type":"tool-call","id":"w2","name":"write_file","input":{"path":"no.txt","content":"denied\n"}},{"type":"finish","reason":"tool-use"}]}`,
		`{"parts":[{"type":"text-delta","text":"one written, one refused"},{"type":"finish","reason":"end"}]}`,
	}
	if err := os.WriteFile(cassette, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	var errb strings.Builder
	stdio := IO{
		In: inR, Out: outW, Err: &syncWriter{b: &errb},
		Getenv: func(k string) string {
			return map[string]string{"SHIRO_HOME": home, "HOME": home}[k]
		},
		Getwd: func() (string, error) { return work, nil },
	}
	code := make(chan int, 1)
	go func() {
		code <- Run(t.Context(), []string{"-p", "--input-format", "stream-json", "--json", "--provider", "replay", "--cassette", cassette}, stdio)
		outW.Close()
	}()
	// The client writes and reads the wire as any program would, not
	// through the protocol package's Go types for ops.
	send := func(line string) {
		if _, err := fmt.Fprintln(inW, line); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"type":"user","text":"write two files"}`)
	var asked []protocol.ApprovalRequestEvent
	var results, denials []string
	sc := bufio.NewScanner(outR)
	for sc.Scan() {
		var head struct {
			Type string `json:"type"`
		}
		if err := json.Unmarshal(sc.Bytes(), &head); err != nil {
			t.Fatalf("stdout line %q: %v", sc.Text(), err)
		}
		decode := func(e any) {
			if err := json.Unmarshal(sc.Bytes(), e); err != nil {
				t.Fatalf("stdout line %q: %v", sc.Text(), err)
			}
		}
		switch head.Type {
		case "approval-request":
			var e protocol.ApprovalRequestEvent
			decode(&e)
			asked = append(asked, e)
			answer := "yes"
			if len(asked) == 2 {
				answer = "no"
			}
			send(fmt.Sprintf(`{"type":"approval","id":%q,"answer":%q}`, e.ID, answer))
		case "tool-result":
			var e protocol.ToolResultEvent
			decode(&e)
			results = append(results, e.ID)
		case "tool-denied":
			var e protocol.ToolDeniedEvent
			decode(&e)
			denials = append(denials, e.ID+" by "+e.By)
		case "done":
			// The client is done with this session: closing stdin ends it.
			inW.Close()
		}
	}
	if c := <-code; c != 0 {
		t.Fatalf("exit %d, stderr %s", c, errb.String())
	}
	if len(asked) != 2 || asked[0].Name != "write_file" || asked[0].Preview == nil || !strings.Contains(asked[0].Preview.Unified, "+allowed") {
		t.Fatalf("approval requests = %+v", asked)
	}
	if strings.Join(results, ",") != "w1" || strings.Join(denials, ",") != "w2 by user" {
		t.Fatalf("results %v, denials %v", results, denials)
	}
	if b, err := os.ReadFile(filepath.Join(work, "yes.txt")); err != nil || string(b) != "allowed\n" {
		t.Fatalf("yes.txt = %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(work, "no.txt")); !os.IsNotExist(err) {
		t.Fatalf("the denied write happened: %v", err)
	}
}

// Without an answer channel (a plain -p run) the same call is denied by
// policy and nothing is asked.
func TestPlainHeadlessNeverAsks(t *testing.T) {
	work := t.TempDir()
	home := t.TempDir()
	cassette := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(cassette, []byte(`{"parts":[{"type":"tool-call","id":"w1","name":"write_file","input":{"path":"x.txt","content":"x"}},{"type":"finish","reason":"tool-use"}]}`+"\n"+
		`{"parts":[{"type":"text-delta","text":"refused"},{"type":"finish","reason":"end"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb strings.Builder
	stdio := IO{
		In: strings.NewReader(""), Out: &out, Err: &errb,
		Getenv: func(k string) string { return map[string]string{"SHIRO_HOME": home, "HOME": home}[k] },
		Getwd:  func() (string, error) { return work, nil },
	}
	if c := Run(t.Context(), []string{"-p", "write x", "--json", "--provider", "replay", "--cassette", cassette}, stdio); c != 0 {
		t.Fatalf("exit %d: %s", c, errb.String())
	}
	if strings.Contains(out.String(), `"type":"approval-request"`) || !strings.Contains(out.String(), `"by":"headless"`) {
		t.Fatalf("stdout = %s", out.String())
	}
	var done struct {
		Reason string `json:"reason"`
	}
	last := strings.Split(strings.TrimSpace(out.String()), "\n")
	if err := json.Unmarshal([]byte(last[len(last)-1]), &done); err != nil || done.Reason != "end" {
		t.Fatalf("last line %q", last[len(last)-1])
	}
}

// syncWriter lets the CLI's goroutines write stderr while the test reads it
// at the end.
type syncWriter struct {
	mu sync.Mutex
	b  *strings.Builder
}

func (w *syncWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}
