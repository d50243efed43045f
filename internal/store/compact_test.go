package store

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

// A compaction's marker: resuming loads the compacted history and what
// came after it, the summary call's usage counts in the session's, and
// the transcript and its export keep every older message with the
// summary shown where the compaction happened.
func TestACompactionKeepsTheOldMessagesAndCountsItsCall(t *testing.T) {
	s := newStore(t)
	ctx := context.Background()
	h := head("s1", "/work/p")
	mustAppend(t, s, h, user("make the parser faster"), assistant("Looking."), user("and the lexer"), assistant("Done."))
	compacted := []llm.Message{llm.UserText("make the parser faster"), llm.UserText("[summary] parser and lexer sped up"),
		llm.UserText("and the lexer"), {Role: llm.RoleAssistant, Parts: []llm.Part{llm.Text{Text: "Done."}}}}
	m := Marker{Kind: MarkCompacted, History: compacted, Summary: "Goal: a faster parser.\nFiles: parser.go", Summarized: 1}
	if err := s.Compacted(ctx, h, m, "m2", llm.Usage{InputTokens: 900, OutputTokens: 60}); err != nil {
		t.Fatal(err)
	}
	if err := s.Compacted(ctx, h, Marker{Kind: MarkCleared}, "m2", llm.Usage{}); err == nil {
		t.Fatal("a marker of another kind was taken as a compaction")
	}
	mustAppend(t, s, h, user("now the tests"))

	snap, err := s.Load(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := messagesJSON(t, snap.History), messagesJSON(t, append(compacted, llm.UserText("now the tests"))); got != want {
		t.Fatalf("loaded history:\n%s\nwant\n%s", got, want)
	}
	// The two answers used 100/10 each (see assistant).
	if u := snap.Session.Usage; u.InputTokens != 200+900 || u.OutputTokens != 20+60 || snap.Session.Messages != 5 {
		t.Fatalf("session after compaction: %+v", snap.Session)
	}
	sess, entries, err := s.Transcript(ctx, "s1")
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 6 || entries[4].Marker == nil || entries[4].Usage == nil || entries[4].Model != "m2" {
		t.Fatalf("transcript entries: %+v", entries)
	}
	var md bytes.Buffer
	if err := ExportMarkdown(&md, sess, entries); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, want := range []string{
		"\n## You\n\nmake the parser faster\n",
		"*The history above was compacted here: 1 earlier messages were replaced, for the model, by this summary",
		"> Goal: a faster parser.\n> Files: parser.go\n",
		"\n## You\n\nnow the tests\n",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("export lacks %q:\n%s", want, out)
		}
	}
}
