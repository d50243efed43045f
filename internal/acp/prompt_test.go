package acp

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder/acp-go-sdk"
)

// promptText is promptContent for a prompt that must have no images.
func promptText(blocks []acp.ContentBlock, cwd string) (string, error) {
	text, images, err := promptContent(blocks, cwd)
	if err == nil && len(images) > 0 {
		return "", errors.New("the prompt has images")
	}
	return text, err
}

func TestPromptTextJoinsBlocks(t *testing.T) {
	cwd := filepath.FromSlash("/work/proj")
	blocks := []acp.ContentBlock{
		acp.TextBlock("compare"),
		acp.ResourceLinkBlock("main.go", "file:///work/proj/cmd/main.go"),
		acp.TextBlock("with"),
		acp.ResourceBlock(acp.EmbeddedResourceResource{TextResourceContents: &acp.TextResourceContents{
			Uri: "file:///work/proj/util.go#L3:5", Text: "func f() {\n\t// ```\n}",
		}}),
		acp.TextBlock(", and read "),
		acp.ResourceLinkBlock("spec", "https://example.com/spec"),
	}
	got, err := promptText(blocks, cwd)
	if err != nil {
		t.Fatal(err)
	}
	want := "compare @" + filepath.FromSlash("cmd/main.go") + " with @util.go#L3:5, and read @https://example.com/spec\n\n" +
		"util.go#L3:5:\n````\nfunc f() {\n\t// ```\n}\n````"
	if got != want {
		t.Fatalf("prompt:\n got %q\nwant %q", got, want)
	}
}

func TestPromptTextKeepsPathsOutsideTheWorkspaceAbsolute(t *testing.T) {
	got, err := promptText([]acp.ContentBlock{acp.ResourceLinkBlock("x", "file:///etc/hosts")}, filepath.FromSlash("/work/proj"))
	if err != nil || got != "@"+filepath.FromSlash("/etc/hosts") {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestPromptTextNamesBinaryResources(t *testing.T) {
	mime := "image/png"
	got, err := promptText([]acp.ContentBlock{
		acp.TextBlock("see"),
		acp.ResourceBlock(acp.EmbeddedResourceResource{BlobResourceContents: &acp.BlobResourceContents{Uri: "file:///p/a.png", Blob: "AAAA", MimeType: &mime}}),
	}, "/p")
	if err != nil || got != "see @a.png\n\na.png: image/png content, not included" {
		t.Fatalf("got %q, %v", got, err)
	}
}

func TestPromptTextRefusesWhatWasNotOffered(t *testing.T) {
	for name, blocks := range map[string][]acp.ContentBlock{
		"image": {acp.TextBlock("look"), acp.ImageBlock("AAAA", "image/png")}, // not a picture
		"audio": {acp.AudioBlock("AAAA", "audio/wav")},
		"empty": {acp.TextBlock("  \n")},
		"none":  {},
	} {
		if _, err := promptText(blocks, "/p"); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	_, err := promptText([]acp.ContentBlock{acp.TextBlock("x"), acp.AudioBlock("AAAA", "audio/wav")}, "/p")
	if err == nil || !strings.Contains(err.Error(), "block 1 is audio") {
		t.Fatalf("error = %v", err)
	}
}
