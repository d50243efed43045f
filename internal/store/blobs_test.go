package store

import (
	"bytes"
	"database/sql"
	"os"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

// A picture that stays in the history is stored once: the entries hold its
// hash, the blobs table its bytes; resuming, a compaction's marker, the
// transcript and both exports get it back whole.
func TestImagesAreStoredOnceByHash(t *testing.T) {
	s := newStore(t)
	ctx := t.Context()
	shot, err := llm.NewImage("image/png", bytes.Repeat([]byte("\x89PNG screenshot "), 4096))
	if err != nil {
		t.Fatal(err)
	}
	h := Head{ID: NewID(), Cwd: t.TempDir()}
	user := llm.Message{Role: llm.RoleUser, Parts: []llm.Part{shot, llm.Text{Text: "what is wrong?"}}}
	call := llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{llm.ToolCall{ID: "c1", Name: "read_file", Input: []byte(`{"path":"shot.png"}`)}}}
	result := llm.Message{Role: llm.RoleTool, Parts: []llm.Part{llm.ToolResult{CallID: "c1", Name: "read_file", Output: "shot.png", Images: []llm.Image{shot}}}}
	if err := s.Append(ctx, h, Step{Message: user}, Step{Message: call}, Step{Message: result}); err != nil {
		t.Fatal(err)
	}
	if err := s.Mark(ctx, h, Marker{Kind: MarkCompacted, History: []llm.Message{user}, Summary: "s", Summarized: 2}); err != nil {
		t.Fatal(err)
	}

	// What is on disk: one blob, and no entry holding the base64.
	db, err := sql.Open("sqlite3", s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var blobs, inBodies int
	if err := db.QueryRow(`SELECT COUNT(*) FROM blobs`).Scan(&blobs); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`SELECT COUNT(*) FROM entries WHERE instr(body, ?) > 0`, shot.Base64()[:64]).Scan(&inBodies); err != nil {
		t.Fatal(err)
	}
	if blobs != 1 || inBodies != 0 {
		t.Fatalf("%d blobs, %d entries with the bytes inline", blobs, inBodies)
	}
	raw, err := os.ReadFile(s.Path())
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(raw, shot.Data[:64]); n > 1 {
		t.Errorf("the picture's bytes are in the database file %d times", n)
	}

	snap, err := s.Load(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	if imgs := snap.History[0].Images(); len(imgs) != 1 || !bytes.Equal(imgs[0].Data, shot.Data) {
		t.Fatalf("resumed history lost the picture: %+v", snap.History[0].Parts)
	}
	_, entries, err := s.Transcript(ctx, h.ID)
	if err != nil {
		t.Fatal(err)
	}
	if imgs := entries[2].Message.Images(); len(imgs) != 1 || !bytes.Equal(imgs[0].Data, shot.Data) {
		t.Fatalf("transcript lost the tool's picture")
	}
	var js, md strings.Builder
	if err := ExportJSON(&js, Session{}, entries); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(js.String(), shot.Base64()); n != 1 {
		t.Errorf("the JSON export holds the picture %d times, want once", n)
	}
	if err := ExportMarkdown(&md, Session{}, entries); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(md.String(), "*[image: image/png, 65536 bytes, sha256 "+shot.SHA256[:12]); n != 2 {
		t.Errorf("the Markdown export names the picture %d times, want 2 (prompt, result):\n%s", n, md.String())
	}
}
