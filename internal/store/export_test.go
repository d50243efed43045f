package store

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

func exportFixture(t *testing.T) (Session, []Entry) {
	t.Helper()
	s := newStore(t)
	ctx := context.Background()
	h := head("s1", "/work/p")
	var long []string
	for i := range 40 {
		long = append(long, fmt.Sprintf("line %d", i+1))
	}
	mustAppend(t, s, h,
		user("explain the build"),
		assistant("Let me look.", call("c1", "bash", `{"command":"make -n"}`), call("c2", "read_file", `{"path":"x.md"}`)),
		results(
			llm.ToolResult{CallID: "c1", Name: "bash", Output: strings.Join(long, "\n")},
			llm.ToolResult{CallID: "c2", Name: "read_file", Output: "has ``` fences", IsError: true},
		),
		assistant("It runs make."),
		assistant("", call("c3", "bash", `{"command":"sleep 9"}`)),
	)
	if err := s.Mark(ctx, h, Marker{Kind: MarkCleared}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, s, h, user("start over"))
	sess, entries, err := s.Transcript(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	return sess, entries
}

func TestExportMarkdownReadsAsATranscript(t *testing.T) {
	sess, entries := exportFixture(t)
	var buf bytes.Buffer
	if err := ExportMarkdown(&buf, sess, entries); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{
		"# explain the build\n",
		"- Session: `s1`\n- Directory: `/work/p`\n",
		"- Model: anthropic / m1\n",
		"- Tokens: 300 in, 30 out, 150 cache read, 0 cache written\n",
		"\n## You\n\nexplain the build\n",
		"\n## shiro\n\nLet me look.\n",
		"**bash**\n\n```json\n{\n  \"command\": \"make -n\"\n}\n```\n",
		"<details><summary>Result (first 30 lines of 40)</summary>\n\n```\nline 1\n",
		"line 30\n```\n",
		// A result holding a fence gets a longer fence.
		"<details><summary>Error</summary>\n\n````\nhas ``` fences\n````\n",
		"\nIt runs make.\n",
		"*No result was stored (the step was cut off).*",
		"\n---\n\n*The conversation was cleared here; it starts over below.*\n",
		"## You\n\nstart over\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q\n%s", want, md)
		}
	}
	if strings.Contains(md, "line 31") {
		t.Error("the result was not cut at 30 lines")
	}
}

func TestExportJSONKeepsEverything(t *testing.T) {
	sess, entries := exportFixture(t)
	var buf bytes.Buffer
	if err := ExportJSON(&buf, sess, entries); err != nil {
		t.Fatal(err)
	}
	var back struct {
		Session Session `json:"session"`
		Entries []Entry `json:"entries"`
	}
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatalf("export is not JSON: %v\n%s", err, buf.String())
	}
	if back.Session.ID != "s1" || len(back.Entries) != len(entries) {
		t.Fatalf("round trip: %+v, %d entries", back.Session, len(back.Entries))
	}
	res := back.Entries[2].Message.Parts[0].(llm.ToolResult)
	if !strings.Contains(res.Output, "line 40") {
		t.Error("the JSON export cut a tool result")
	}
	if back.Entries[5].Marker == nil || back.Entries[5].Marker.Kind != MarkCleared {
		t.Errorf("marker entry %+v", back.Entries[5])
	}
	if back.Entries[1].Usage == nil || back.Entries[1].Usage.InputTokens != 100 {
		t.Errorf("per-step usage lost: %+v", back.Entries[1])
	}
}

// A call's input reads as the command was written: the stored form
// escapes & and > (\u0026, \u003e), the export does not.
func TestExportMarkdownShowsACommandAsWritten(t *testing.T) {
	s := newStore(t)
	h := head("s1", "/work/p")
	mustAppend(t, s, h, user("build"), assistant("", call("c1", "bash", `{"command":"make && cat > out","timeout":12345678901234567890}`)))
	sess, entries, err := s.Transcript(context.Background(), "s1")
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := ExportMarkdown(&buf, sess, entries); err != nil {
		t.Fatal(err)
	}
	want := "```json\n{\n  \"command\": \"make && cat > out\",\n  \"timeout\": 12345678901234567890\n}\n```"
	if !strings.Contains(buf.String(), want) {
		t.Fatalf("markdown lacks %q\n%s", want, buf.String())
	}
}
