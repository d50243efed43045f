package agent

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

// A picture weighs in the size estimate, pruning a tool result drops its
// pictures with its output, and the compaction transcript names a picture
// without sending its bytes.
func TestImagesInPruningAndCompaction(t *testing.T) {
	img, err := llm.NewImage("image/png", []byte("\x89PNG picture bytes"))
	if err != nil {
		t.Fatal(err)
	}
	result := llm.Message{Role: llm.RoleTool, Parts: []llm.Part{llm.ToolResult{CallID: "c", Name: "read_file", Output: "x.png", Images: []llm.Image{img}}}}
	if est := estimateTokens(result); est < 1600 {
		t.Errorf("a result with a picture is estimated at %d tokens", est)
	}
	pruned := withoutToolOutput(result)
	if r := pruned.Parts[0].(llm.ToolResult); len(r.Images) != 0 || r.Output != prunedOutput {
		t.Errorf("pruned result %+v", r)
	}
	var b strings.Builder
	writeTranscript(&b, []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{img, llm.Text{Text: "look"}}}, result})
	got := b.String()
	want := "[image image/png, 18 bytes, sha256 " + img.SHA256[:12] + "]"
	if strings.Count(got, want) != 2 || strings.Contains(got, img.Base64()) {
		t.Fatalf("transcript:\n%s", got)
	}
}
