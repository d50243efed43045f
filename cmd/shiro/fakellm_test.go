package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"strconv"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/shiro-neko/shiro/internal/llm/llmtest"
)

// fakeKey holds a script's fake model server in its testscript values.
const fakeKey = "fakellm"

// fakeSlot is where a script's fake server lives once fakellm starts it.
type fakeSlot struct{ srv *llmtest.Server }

// fakeCmds are the script commands around the loopback fake model server:
//
//	fakellm N               start a fake answering N turns with "I see it.",
//	                        and set $FAKE_URL to its API root
//	modelcalls N            the fake has had exactly N model calls
//	sentimage FILE PATH WHERE  the last model call went to PATH and carried
//	                        FILE's bytes as an image block at WHERE (a path
//	                        into the request body, llmtest.SentImage)
//	mkpng FILE W H          write a W×H PNG
//	fakesay TEXT            the fake's next answer is TEXT (after those
//	                        fakellm queued); fakesay -f FILE, FILE's text
//	fakecall ID NAME JSON   the fake's next answer calls the tool NAME
//	                        with input JSON
//	lastbody FILE [N]       write the last (or the Nth, from 1) model
//	                        call's request body to FILE, for grep
var fakeCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"fakesay":    fakesayCmd,
	"fakecall":   fakecallCmd,
	"lastbody":   lastbodyCmd,
	"fakellm":    fakellmCmd,
	"modelcalls": modelcallsCmd,
	"sentimage":  sentimageCmd,
	"mkpng":      mkpngCmd,
}

func fake(ts *testscript.TestScript) *fakeSlot {
	slot, _ := ts.Value(fakeKey).(*fakeSlot)
	if slot == nil {
		ts.Fatalf("no fake slot: the script setup did not run")
	}
	return slot
}

func fakellmCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: fakellm N")
	}
	n, err := strconv.Atoi(args[0])
	ts.Check(err)
	replies := make([]llmtest.Reply, n)
	for i := range replies {
		replies[i] = llmtest.Reply{Text: "I see it.", Usage: llmtest.Usage{InputTokens: 10, OutputTokens: 3}}
	}
	slot := fake(ts)
	if slot.srv != nil {
		ts.Fatalf("fakellm: already started")
	}
	slot.srv = llmtest.Start(replies...)
	ts.Defer(slot.srv.Close)
	ts.Setenv("FAKE_URL", slot.srv.URL)
}

func modelcallsCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: modelcalls N")
	}
	want, err := strconv.Atoi(args[0])
	ts.Check(err)
	if got := len(fake(ts).srv.ModelCalls()); got != want {
		ts.Fatalf("the fake had %d model calls, want %d", got, want)
	}
}

func sentimageCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: sentimage FILE PATH WHERE")
	}
	want, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	calls := fake(ts).srv.ModelCalls()
	if len(calls) == 0 {
		ts.Fatalf("the fake had no model call")
	}
	last := calls[len(calls)-1]
	if last.Path != args[1] {
		ts.Fatalf("the last model call went to %s, want %s", last.Path, args[1])
	}
	sent, err := last.Images()
	ts.Check(err)
	for _, img := range sent {
		ts.Logf("image %s at %s, %d bytes", img.MediaType, img.Where, len(img.Data))
		if img.Where == args[2] && img.MediaType == "image/png" && bytes.Equal(img.Data, want) {
			return
		}
	}
	ts.Fatalf("no image block with %s's %d bytes at %s (%d images sent)", args[0], len(want), args[2], len(sent))
}

func mkpngCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: mkpng FILE W H")
	}
	w, err := strconv.Atoi(args[1])
	ts.Check(err)
	h, err := strconv.Atoi(args[2])
	ts.Check(err)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, x%max(h, 1), color.RGBA{R: 255, A: 255})
	}
	var buf bytes.Buffer
	ts.Check(png.Encode(&buf, img))
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), buf.Bytes(), 0o644))
}

func fakesayCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 && (len(args) != 2 || args[0] != "-f") {
		ts.Fatalf("usage: fakesay TEXT | fakesay -f FILE")
	}
	srv := fake(ts).srv
	if srv == nil {
		ts.Fatalf("fakesay: start the fake with fakellm first")
	}
	text := args[0]
	if len(args) == 2 {
		text = ts.ReadFile(args[1])
	}
	srv.Push(llmtest.Reply{Text: text, Usage: llmtest.Usage{InputTokens: 10, OutputTokens: 3}})
}

func fakecallCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 3 {
		ts.Fatalf("usage: fakecall ID NAME JSON")
	}
	srv := fake(ts).srv
	if srv == nil {
		ts.Fatalf("fakecall: start the fake with fakellm first")
	}
	srv.Push(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: args[0], Name: args[1], Input: args[2]}}, Usage: llmtest.Usage{InputTokens: 10, OutputTokens: 3}})
}

func lastbodyCmd(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 1 || len(args) > 2 {
		ts.Fatalf("usage: lastbody FILE [N]")
	}
	calls := fake(ts).srv.ModelCalls()
	n := len(calls)
	if len(args) == 2 {
		var err error
		n, err = strconv.Atoi(args[1])
		ts.Check(err)
	}
	if n < 1 || n > len(calls) {
		ts.Fatalf("the fake had %d model calls, not a call %d", len(calls), n)
	}
	ts.Check(os.WriteFile(ts.MkAbs(args[0]), calls[n-1].Body, 0o644))
}
