package acp_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"image"
	"image/png"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/shiro-neko/shiro/internal/acp"
	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm/anthropic"
	"github.com/shiro-neko/shiro/internal/llm/llmtest"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/tool"
)

// An image block of an editor's prompt reaches the model: a real session
// over the Anthropic adapter sends the PNG's exact bytes to the fake
// server, next to the words.
func TestImageInAPromptArrives(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 30, 20))); err != nil {
		t.Fatal(err)
	}
	shot := buf.Bytes()
	srv := llmtest.New(t, llmtest.Reply{Text: "a grey box"})
	open := func(ctx context.Context, req acp.NewSession) (acp.Session, error) {
		reg, err := tool.NewRegistry()
		if err != nil {
			return nil, err
		}
		return agent.Start(ctx, agent.Config{
			Provider: anthropic.New(anthropic.Config{BaseURL: srv.URL, APIKey: "k"}), Model: "claude-sonnet-4-6", SessionID: "s1", Cwd: req.Cwd,
			Tools: reg, Gate: &agent.Gate{Rules: asksForWrites{}, Plugins: plugin.NewHost(), Cwd: req.Cwd},
			Prompter: prompter{}, Filter: tool.Filter{Sets: tool.DefaultSets()}, Attended: true,
		})
	}
	w := connect(t, open)
	init, err := w.Initialize(t.Context(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil || !init.AgentCapabilities.PromptCapabilities.Image {
		t.Fatalf("initialize does not offer images: %+v, %v", init.AgentCapabilities, err)
	}
	sess := w.open(t, t.TempDir())
	r, err := w.Prompt(t.Context(), sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("what is this?"), sdk.ImageBlock(base64.StdEncoding.EncodeToString(shot), "image/png"),
	}})
	if err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v, %v", r, err)
	}
	calls := srv.ModelCalls()
	if len(calls) != 1 {
		t.Fatalf("%d model calls", len(calls))
	}
	sent, err := calls[0].Images()
	if err != nil || len(sent) != 1 || !bytes.Equal(sent[0].Data, shot) || sent[0].Where != "messages[0].content[0]" {
		t.Fatalf("sent %+v, %v", sent, err)
	}
	if !strings.Contains(string(calls[0].Body), `"text":"what is this?"`) {
		t.Errorf("the words did not go with the picture:\n%.400s", calls[0].Body)
	}

	// Bytes that are not a picture are refused with the block's index.
	_, err = w.Prompt(t.Context(), sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("and this?"), sdk.ImageBlock(base64.StdEncoding.EncodeToString([]byte("not a picture")), "image/png"),
	}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(re.Message, "block 1: image is not a PNG, JPEG, GIF or WebP picture") {
		t.Fatalf("bad image: %v", err)
	}
}
