package llmtest_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// Every wire sends the person's picture and the one a tool returned as
// image blocks, the bytes intact, and the request log shows where each
// went: the user's in a user message, the tool's inside the result where
// the wire allows it (Anthropic, Responses) and in a user message right
// after the tool message where it does not (chat completions).
func TestImagesGoOutOnEveryWire(t *testing.T) {
	shot, err := llm.NewImage("image/png", []byte("\x89PNG\r\n\x1a\nthe screenshot"))
	if err != nil {
		t.Fatal(err)
	}
	plot, err := llm.NewImage("image/jpeg", []byte("\xff\xd8\xffthe plot"))
	if err != nil {
		t.Fatal(err)
	}
	history := []llm.Message{
		{Role: llm.RoleUser, Parts: []llm.Part{shot, llm.Text{Text: "what is wrong here?"}}},
		{Role: llm.RoleAssistant, Parts: []llm.Part{llm.ToolCall{ID: "c1", Name: "read_file", Input: []byte(`{"path":"plot.jpg"}`)}}},
		{Role: llm.RoleTool, Parts: []llm.Part{llm.ToolResult{CallID: "c1", Name: "read_file", Output: "plot.jpg: image", Images: []llm.Image{plot}}}},
	}
	wantWhere := map[string][2]string{
		"anthropic": {"messages[0].content[0]", "messages[2].content[0].content[1]"},
		"chat":      {"messages[0].content[0]", "messages[3].content[1]"},
		"responses": {"input[0].content[0]", "input[2].output[1]"},
	}
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Reply{Text: "a red square"})
			p := w.new(srv.URL, 0)
			for _, err := range p.Stream(context.Background(), &llm.Request{Model: "m", Messages: history}) {
				if err != nil {
					t.Fatal(err)
				}
			}
			calls := srv.ModelCalls()
			if len(calls) != 1 {
				t.Fatalf("%d model calls", len(calls))
			}
			sent, err := calls[0].Images()
			if err != nil {
				t.Fatal(err)
			}
			if len(sent) != 2 {
				t.Fatalf("%d images sent, want 2:\n%s", len(sent), calls[0].Body)
			}
			for i, want := range []llm.Image{shot, plot} {
				got := sent[i]
				if got.MediaType != want.MediaType || !bytes.Equal(got.Data, want.Data) || got.Where != wantWhere[w.name][i] {
					t.Errorf("image %d: %s %q at %s, want %s %q at %s", i, got.MediaType, got.Data, got.Where,
						want.MediaType, want.Data, wantWhere[w.name][i])
				}
			}
			if w.name == "chat" && !strings.Contains(string(calls[0].Body), "The images returned by tool call c1 (read_file):") {
				t.Errorf("the chat wire's follow-up message does not say which call the image came from:\n%s", calls[0].Body)
			}
		})
	}
}

// An image whose bytes were never put back (a store that lost its blob)
// fails the request before anything is sent, rather than sending an
// empty picture.
func TestImageWithoutBytesIsNotSent(t *testing.T) {
	img, err := llm.NewImage("image/png", []byte("png"))
	if err != nil {
		t.Fatal(err)
	}
	img.Data = nil
	for _, w := range wires {
		t.Run(w.name, func(t *testing.T) {
			srv := llmtest.New(t, llmtest.Reply{Text: "x"})
			var failed error
			for _, err := range w.new(srv.URL, 0).Stream(context.Background(), &llm.Request{Model: "m",
				Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{img, llm.Text{Text: "hi"}}}}}) {
				if err != nil {
					failed = err
					break
				}
			}
			if failed == nil || !strings.Contains(failed.Error(), "has no bytes to send") || len(srv.ModelCalls()) != 0 {
				t.Fatalf("err %v, %d calls", failed, len(srv.ModelCalls()))
			}
		})
	}
}
