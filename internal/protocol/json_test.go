package protocol_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// samples holds one event of every type, with every member set where it
// has members, so a round trip exercises every tag.
func samples() []protocol.Event {
	return []protocol.Event{
		protocol.SessionEvent{SessionID: "s", Cwd: "/w", Provider: "anthropic", Model: "m", Agent: "default", Thinking: "medium", Attended: true, Agents: []protocol.AgentInfo{{Name: "plan", Description: "d", ReadOnly: true}}},
		protocol.CommandsEvent{Commands: []protocol.CommandInfo{{Name: "cost", Args: "[x]", Summary: "s", Immediate: true}}},
		protocol.TurnStartEvent{Turn: 2, Text: "hi"},
		protocol.TextEvent{Text: "a > b"},
		protocol.ReasoningEvent{Text: "hmm"},
		protocol.ToolStartEvent{ID: "c1", Name: "bash"},
		protocol.ToolCallEvent{ID: "c1", Name: "bash", Input: json.RawMessage(`{"command":"ls"}`), Title: "ls", Kind: protocol.KindExecute, Locations: []string{"a.go"}},
		protocol.ToolOutputEvent{ID: "c1", Chunk: "x\n"},
		protocol.ToolResultEvent{ID: "c1", Name: "edit_file", Output: "ok", Diff: &protocol.Diff{Path: "a", Before: "1", After: "2", Unified: "-1\n+2\n"}},
		protocol.ToolErrorEvent{ID: "c1", Name: "bash", Error: "boom"},
		protocol.ToolDeniedEvent{ID: "c1", Name: "bash", By: "guard", Reason: "no"},
		protocol.ApprovalRequestEvent{ID: "a1", CallID: "c1", Name: "write_file", Input: json.RawMessage(`{}`), Title: "write a", Kind: protocol.KindEdit, Pattern: "*", Repeated: true, Grants: []string{"write_file *"}, Subagent: "worker", Preview: &protocol.Diff{Path: "a", Unified: "+x\n"}},
		protocol.QuestionEvent{ID: "q1", CallID: "c2", Question: "which?", Options: []protocol.Option{{Label: "a", Detail: "d"}}, Multiple: true},
		protocol.WithdrawnEvent{ID: "a1"},
		protocol.BackgroundEvent{ID: "bg1", Command: "npm run dev", State: "exited", ExitCode: 2, Running: 1},
		protocol.TasksEvent{Tasks: []protocol.Task{{Content: "do", Status: "pending", Note: "n"}}},
		protocol.CompactedEvent{Before: 10, After: 5},
		protocol.NoticeEvent{Text: "note"},
		protocol.ErrorEvent{Error: "bad"},
		protocol.SubagentEvent{ID: "c1.1", CallID: "c1", Kind: "explore", Phase: protocol.SubagentStep, Text: "grep x"},
		protocol.CommandResultEvent{Command: "cost", Output: "0 tokens", Error: "e", Choices: []protocol.Choice{{Label: "a", Detail: "d", Line: "/model a"}}},
		protocol.DoneEvent{Usage: &protocol.Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4}, Reason: protocol.StopEnd},
		protocol.UsageEvent{Usage: protocol.Usage{InputTokens: 1, OutputTokens: 2, CacheReadTokens: 3, CacheWriteTokens: 4}, CostUSD: new(0.25), Unpriced: []string{"house-model"}},
		protocol.HistoryEvent{Messages: []protocol.HistoryMessage{
			{Role: protocol.HistoryUser, Text: "fix it"},
			{Role: protocol.HistoryAssistant, Text: "done", Reasoning: "r", Calls: []protocol.HistoryCall{{ID: "c1", Name: "edit_file", Input: json.RawMessage(`{"path":"a"}`), Title: "a", Kind: protocol.KindEdit, Locations: []string{"a"}, Output: "ok", IsError: true}}},
		}},
	}
}

func TestEveryEventRoundTrips(t *testing.T) {
	seen := map[string]bool{}
	for _, e := range samples() {
		b, err := protocol.Marshal(e)
		if err != nil {
			t.Fatalf("%T: %v", e, err)
		}
		name := protocol.TypeOf(e)
		if !strings.HasPrefix(string(b), `{"type":"`+name+`"`) {
			t.Errorf("%T: JSON does not start with its type: %s", e, b)
		}
		if seen[name] {
			t.Errorf("two event types are called %q", name)
		}
		seen[name] = true
		back, err := protocol.DecodeEvent(b)
		if err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		if !reflect.DeepEqual(back, e) {
			t.Errorf("round trip changed %T:\n got %#v\nwant %#v", e, back, e)
		}
	}
}

func TestEventShapesOfTheReferenceAreKept(t *testing.T) {
	for _, c := range []struct {
		e    protocol.Event
		want string
	}{
		{protocol.TextEvent{Text: "a > b & c"}, `{"type":"text","text":"a > b & c"}`},
		{protocol.ToolStartEvent{ID: "1", Name: "bash"}, `{"type":"tool-start","id":"1","name":"bash"}`},
		{protocol.ToolCallEvent{ID: "1", Name: "bash", Input: json.RawMessage(`{"command":"ls"}`)}, `{"type":"tool-call","id":"1","name":"bash","input":{"command":"ls"}}`},
		{protocol.ToolDeniedEvent{Name: "bash", By: "headless", Reason: "r"}, `{"type":"tool-denied","name":"bash","by":"headless","reason":"r"}`},
		{protocol.DoneEvent{}, `{"type":"done"}`},
		{protocol.DoneEvent{Usage: &protocol.Usage{InputTokens: 5}}, `{"type":"done","inputTokens":5,"outputTokens":0,"cacheReadTokens":0,"cacheWriteTokens":0}`},
		{protocol.CompactedEvent{Before: 3, After: 1}, `{"type":"compacted","before":3,"after":1}`},
		{protocol.UsageEvent{Usage: protocol.Usage{InputTokens: 5}}, `{"type":"usage","inputTokens":5,"outputTokens":0,"cacheReadTokens":0,"cacheWriteTokens":0}`},
	} {
		b, err := protocol.Marshal(c.e)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != c.want {
			t.Errorf("got  %s\nwant %s", b, c.want)
		}
	}
}

func TestDecodeOp(t *testing.T) {
	for _, c := range []struct {
		line string
		want protocol.Op
	}{
		{`{"type":"user","text":"hi"}`, protocol.UserTurn{Text: "hi"}},
		{`{"type":"approval","id":"a1","answer":"always"}`, protocol.Approval{ID: "a1", Decision: protocol.Always}},
		{`{"type":"answer","id":"q1","chosen":["a","b"]}`, protocol.Answer{ID: "q1", Chosen: []string{"a", "b"}}},
		{`{"type":"interrupt"}`, protocol.Interrupt{}},
		{`{"type":"interrupt","callId":"c1"}`, protocol.Interrupt{CallID: "c1"}},
		{`{"type":"configure","agent":"plan"}`, protocol.Configure{Agent: "plan"}},
		{`{"type":"command","line":"/cost"}`, protocol.Command{Line: "/cost"}},
		{`{"type":"shutdown"}`, protocol.Shutdown{}},
	} {
		got, err := protocol.DecodeOp([]byte(c.line))
		if err != nil {
			t.Errorf("%s: %v", c.line, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %#v", c.line, got)
		}
		b, err := protocol.MarshalOp(got)
		if err != nil {
			t.Fatal(err)
		}
		again, err := protocol.DecodeOp(b)
		if err != nil || !reflect.DeepEqual(again, got) {
			t.Errorf("%s: re-encoded as %s, decoded as %#v, %v", c.line, b, again, err)
		}
	}
}

func TestDecodeOpRefusesWithAReason(t *testing.T) {
	for line, want := range map[string]string{
		`{"type":"user"}`:                                `"text" is empty`,
		`{"type":"user","text":"a","x":1}`:               `unknown field "x"`,
		`{"type":"user","text":"a","text":"b"}`:          `duplicate key`,
		`{"type":"approval","id":"a","answer":"maybe"}`:  `"answer" must be`,
		`{"type":"approval","answer":"yes"}`:             `"id" is missing`,
		`{"type":"answer","text":"x"}`:                   `"id" is missing`,
		`{"type":"configure"}`:                           `at least one`,
		`{"type":"command","line":"cost"}`:               `slash command`,
		`{"type":"dance"}`:                               `unknown "type" "dance"`,
		`{"text":"hi"}`:                                  `want a "type"`,
		`not json`:                                       `not one JSON object`,
		`{"type":"user","text":"a"} {"type":"shutdown"}`: `not one JSON object`,
		`["user"]`:                        `want a JSON object`,
		`{"type":"interrupt","callId":1}`: `interrupt:`,
		`{"type":"user","text":"a","type":"approval"}`:      `duplicate key`,
		`{"type":"approval","id":"a","answer":"yes","z":1}`: `unknown field "z"`,
	} {
		_, err := protocol.DecodeOp([]byte(line))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want it to say %q", line, err, want)
		}
	}
}

func FuzzDecodeOp(f *testing.F) {
	f.Add(`{"type":"user","text":"hi"}`)
	f.Add(`{"type":"approval","id":"a1","answer":"no","reason":"r"}`)
	f.Add(`{"type":"answer","id":"q","chosen":[],"dismissed":true}`)
	f.Fuzz(func(t *testing.T, line string) {
		op, err := protocol.DecodeOp([]byte(line))
		if err != nil {
			return
		}
		// Whatever is accepted re-encodes to something accepted as the same.
		b, err := protocol.MarshalOp(op)
		if err != nil {
			t.Fatal(err)
		}
		again, err := protocol.DecodeOp(b)
		if err != nil || !reflect.DeepEqual(again, op) {
			t.Fatalf("%q → %s → %#v, %v", line, b, again, err)
		}
	})
}
