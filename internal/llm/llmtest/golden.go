package llmtest

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

// updateGolden rewrites the golden files instead of comparing with them:
// `go test ./internal/llm/... -run Wire -update-wire`. The flag is
// registered once, by the test binary that links this package.
var updateGolden = flag.Bool("update-wire", false, "rewrite the wire goldens in testdata from the bodies sent")

// Golden compares got with the file at path, first rewriting the file
// under -update-wire.
func Golden(t testing.TB, path string, got []byte) {
	t.Helper()
	if *updateGolden {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update-wire to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("the bytes differ from %s:\n got %s\nwant %s", path, got, want)
	}
}

// SealedSession sends req through p three times, as the agent's steps
// would: after each request the history is sealed and grows, first by a
// tool call and its result, then by an answer and the user's next words,
// so that later requests read the adapters' memoised encodings. It
// returns the bodies srv received, one a line, for a golden file.
func SealedSession(t testing.TB, srv *Server, p llm.Provider, req *llm.Request) []byte {
	t.Helper()
	call := llm.ToolCall{ID: "t1", Name: "read", Input: json.RawMessage(`{"path":"p.go"}`)}
	more := [][]llm.Message{
		{{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: "reading"}, call}},
			{Role: llm.RoleTool, Parts: []llm.Part{llm.ToolResult{CallID: "t1", Name: "read", Output: "package p\n\"quoted\" \u00e9\n"}}}},
		{{Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: "done"}}}, llm.UserText("thanks")},
	}
	before := len(srv.ModelCalls())
	for step := 0; step <= len(more); step++ {
		MustCollect(t, p, req)
		if step < len(more) {
			for i := range req.Messages {
				req.Messages[i] = req.Messages[i].Sealed()
			}
			req.Messages = append(req.Messages, more[step]...)
		}
	}
	var bodies []byte
	for _, call := range srv.ModelCalls()[before:] {
		bodies = append(append(bodies, call.Body...), '\n')
	}
	return bodies
}
