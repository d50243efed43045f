package agent_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

var (
	pngBytes  = []byte("\x89PNG\r\n\x1a\nsubmitted")
	jpegBytes = []byte("\xff\xd8\xffattached")
)

// sendTurn submits a turn and returns the events up to its own done; a
// refused turn is an ErrorEvent, as Send reports it.
func sendTurn(s *agent.Owner, turn protocol.UserTurn) []protocol.Event {
	id, err := s.Submit(turn)
	if err != nil {
		return []protocol.Event{protocol.ErrorEvent{Error: err.Error()}}
	}
	var out []protocol.Event
	for e := range s.Events() {
		out = append(out, e)
		if d, ok := e.(protocol.DoneEvent); ok && d.Op == id {
			break
		}
	}
	return out
}

// Pictures submitted with a turn and pictures the Expand hook attached (@shot.png)
// reach the model in the person's message, before the words.
func TestTurnImagesReachTheModel(t *testing.T) {
	attached, err := llm.NewImage("image/jpeg", jpegBytes)
	if err != nil {
		t.Fatal(err)
	}
	s, wire := startWith(t, mustRegistry(t), allowAll(), func(c *agent.Config) {
		c.Hooks = hookFuncs{expand: func(_ context.Context, in agent.TurnInput) agent.TurnInput {
			in.Images = append(in.Images, attached)
			return in
		}}
		c.SeesImages = func(string) bool { return true }
	}, resp(llm.TextDelta{Text: "a cat"}))
	evs := sendTurn(s, protocol.UserTurn{Text: "what is this?"}.WithImages([]protocol.Image{{MediaType: "image/png", Data: pngBytes, Name: "shot.png"}}))
	if start, _ := find[protocol.TurnStartEvent](evs); start.Images != 2 {
		t.Errorf("turn start counts %d images", start.Images)
	}
	reqs := wire.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests: %v", len(reqs), types(evs))
	}
	user := reqs[0].Messages[len(reqs[0].Messages)-1]
	imgs := user.Images()
	if len(imgs) != 2 || !bytes.Equal(imgs[0].Data, pngBytes) || !bytes.Equal(imgs[1].Data, jpegBytes) || user.PlainText() != "what is this?" {
		t.Fatalf("the model got %+v", user.Parts)
	}
	if _, ok := user.Parts[2].(llm.Text); !ok {
		t.Errorf("the words are not after the pictures: %T", user.Parts[2])
	}
}

// A model without vision gets a clear error and no request at all.
func TestImagesForAModelWithoutVisionAreRefusedBeforeSending(t *testing.T) {
	s, wire := startWith(t, mustRegistry(t), allowAll(), func(c *agent.Config) {
		c.SeesImages = func(model string) bool { return model != "test-model" }
	}, resp(llm.TextDelta{Text: "never"}))
	evs := sendTurn(s, protocol.UserTurn{Text: "look"}.WithImages([]protocol.Image{{MediaType: "image/png", Data: pngBytes}}))
	e, ok := find[protocol.ErrorEvent](evs)
	if !ok || !strings.Contains(e.Error, "test-model cannot read images: nothing was sent") {
		t.Fatalf("error %q in %v", e.Error, types(evs))
	}
	if done, _ := find[protocol.DoneEvent](evs); done.Reason != protocol.StopError {
		t.Errorf("done reason %q", done.Reason)
	}
	if n := len(wire.requests()); n != 0 {
		t.Fatalf("%d requests were sent", n)
	}
	// The session goes on: a turn without pictures works.
	if evs := drain(s, "hi"); len(wire.requests()) != 1 {
		t.Fatalf("the next turn sent nothing: %v", types(evs))
	}
}

// A bad picture is refused at Submit, naming it.
func TestBadTurnImageIsRefusedAtSubmit(t *testing.T) {
	s, _ := startWith(t, mustRegistry(t), allowAll(), nil)
	_, err := s.Submit(protocol.UserTurn{Text: "x"}.WithImages([]protocol.Image{{MediaType: "image/tiff", Data: []byte("II*"), Name: "scan.tiff"}}))
	if err == nil || !strings.Contains(err.Error(), "image 1 (scan.tiff)") {
		t.Fatalf("err %v", err)
	}
}

// A tool's pictures go into its result for a model with vision; for one
// without, they are left out and the output says so.
func TestToolImagesFollowTheModelsVision(t *testing.T) {
	for _, sees := range []bool{true, false} {
		img, _ := llm.NewImage("image/png", pngBytes)
		viewer := tool.New(tool.Def[struct{}]{
			Info: tool.Info{Name: "view", Description: "test tool", Set: tool.SetCore, Effect: tool.Reads, Kind: protocol.KindRead},
			Plan: func(*struct{}) tool.Plan { return tool.Plan{Title: "view"} },
			Run: func(context.Context, tool.Runtime, *struct{}) (tool.Result, error) {
				return tool.Result{Output: "shot.png", Images: []llm.Image{img}}, nil
			},
		})
		s, wire := startWith(t, mustRegistry(t, viewer), allowAll(), func(c *agent.Config) {
			c.SeesImages = func(string) bool { return sees }
		}, resp(toolCall("c1", "view", `{}`)), resp(llm.TextDelta{Text: "seen"}))
		drain(s, "show me")
		reqs := wire.requests()
		if len(reqs) != 2 {
			t.Fatalf("vision %v: %d requests", sees, len(reqs))
		}
		last := reqs[1].Messages[len(reqs[1].Messages)-1]
		r := last.Parts[0].(llm.ToolResult)
		if sees && (len(r.Images) != 1 || !bytes.Equal(r.Images[0].Data, pngBytes)) {
			t.Errorf("vision: result %+v", r)
		}
		if !sees && (len(r.Images) != 0 || !strings.Contains(r.Output, "1 image(s) not shown")) {
			t.Errorf("no vision: result %+v", r)
		}
	}
}
