package acp_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/shiro-neko/shiro/internal/acp"
	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/replay"
	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// callIn is the input of the test tools.
type callIn struct {
	Path    string `json:"path,omitempty"`
	Content string `json:"content,omitempty"`
	Command string `json:"command,omitempty"`
}

// workspace is the tools of one test session, acting on a temp dir.
type workspace struct {
	root     string
	blocking chan struct{} // closed when the block tool is running
	bashRuns atomic.Int32
}

func newWorkspace(t *testing.T) *workspace {
	return &workspace{root: t.TempDir(), blocking: make(chan struct{})}
}

func (w *workspace) tools() []tool.Tool {
	var once sync.Once
	write := tool.New(tool.Def[callIn]{
		Info: tool.Info{Name: "write", Description: "writes a file", Set: tool.SetCore, Effect: tool.Writes, Kind: protocol.KindEdit, Subject: tool.PathSubject},
		Plan: func(in *callIn) tool.Plan {
			return tool.Plan{Subjects: []string{in.Path}, Writes: []string{in.Path}, Title: in.Path}
		},
		Preview: func(_ context.Context, in *callIn) (*protocol.Diff, error) {
			return tool.FileDiff(in.Path, w.read(in.Path), in.Content), nil
		},
		Run: func(_ context.Context, _ tool.Runtime, in *callIn) (tool.Result, error) {
			before := w.read(in.Path)
			if err := os.WriteFile(filepath.Join(w.root, in.Path), []byte(in.Content), 0o644); err != nil {
				return tool.Result{}, err
			}
			return tool.Result{Output: "wrote " + in.Path, Diff: tool.FileDiff(in.Path, before, in.Content)}, nil
		},
	})
	block := tool.New(tool.Def[callIn]{
		Info: tool.Info{Name: "block", Description: "waits until stopped", Set: tool.SetCore, Effect: tool.Reads, Kind: protocol.KindOther},
		Run: func(ctx context.Context, _ tool.Runtime, _ *callIn) (tool.Result, error) {
			once.Do(func() { close(w.blocking) })
			<-ctx.Done()
			return tool.Result{}, ctx.Err()
		},
	})
	bash := tool.New(tool.Def[callIn]{
		Info: tool.Info{Name: "bash", Description: "runs a command", Set: tool.SetCore, Effect: tool.Runs, Kind: protocol.KindExecute, Subject: tool.CommandSubject},
		Plan: func(in *callIn) tool.Plan {
			return tool.Plan{Subjects: []string{in.Command}, Commands: []string{in.Command}, Title: in.Command}
		},
		Run: func(context.Context, tool.Runtime, *callIn) (tool.Result, error) {
			w.bashRuns.Add(1)
			return tool.Text("ran"), nil
		},
	})
	return []tool.Tool{write, block, bash}
}

func (w *workspace) read(path string) string {
	b, err := os.ReadFile(filepath.Join(w.root, path))
	if err != nil {
		return ""
	}
	return string(b)
}

// opener starts real agent sessions playing script, with the guard on
// and every write asking.
func (w *workspace) opener(t *testing.T, script ...replay.Response) acp.Opener {
	return func(ctx context.Context, req acp.NewSession) (acp.Session, error) {
		reg, err := tool.NewRegistry(w.tools()...)
		if err != nil {
			return nil, err
		}
		return agent.Start(ctx, agent.Config{
			Provider: replay.New("test", script), Model: "test-model", SessionID: "s1", Cwd: req.Cwd,
			Tools: reg, Gate: &agent.Gate{Rules: asksForWrites{}, Plugins: plugin.NewHost(plugin.Guard()), Cwd: req.Cwd},
			Prompter: prompter{}, Filter: tool.Filter{Sets: tool.DefaultSets()}, Attended: true,
		})
	}
}

// asksForWrites allows what changes nothing and asks for the rest.
type asksForWrites struct{}

func (asksForWrites) Check(q permission.Query) permission.Result {
	d := permission.Ask
	if q.Default == permission.Allow {
		d = permission.Allow
	}
	return permission.Result{Decision: d, Tool: q.Tool, Source: permission.SourceConfig, Pattern: q.Tool}
}
func (asksForWrites) Grant(q permission.Query) []string        { return []string{q.Tool} }
func (asksForWrites) GrantPreview(q permission.Query) []string { return []string{q.Tool} }

type prompter struct{}

func (prompter) Prompt([]tool.Tool, string) (string, string) { return "You are a test.", "" }

func resp(parts ...llm.StreamPart) replay.Response {
	return append(replay.Response(parts), llm.Finish{Reason: llm.StopEnd, Usage: llm.Usage{InputTokens: 10, OutputTokens: 5}})
}

func toolCall(id, name, input string) llm.StreamPart {
	return llm.ToolCallDone{ID: id, Name: name, Input: json.RawMessage(input)}
}

// An editor's whole conversation with a real session: a write that asks,
// is allowed and lands on disk; a call that blocks until the editor
// cancels; and a guard block reported as failed without a question.
func TestEditorDrivesARealSession(t *testing.T) {
	ws := newWorkspace(t)
	w := connect(t, ws.opener(t,
		resp(toolCall("w1", "write", `{"path":"notes.txt","content":"hello\n"}`)),
		resp(llm.TextDelta{Text: "wrote it"}),
		resp(toolCall("b1", "block", `{}`)),
		resp(toolCall("g1", "bash", `{"command":"rm -rf build"}`)),
		resp(llm.TextDelta{Text: "the guard refused"}),
	))
	ctx := t.Context()
	init, err := w.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	caps := init.AgentCapabilities
	if init.AgentInfo == nil || init.AgentInfo.Name != "shiro" || init.AgentInfo.Version != "1.2.3" || init.ProtocolVersion != sdk.ProtocolVersionNumber ||
		caps.LoadSession || !caps.PromptCapabilities.EmbeddedContext || !caps.PromptCapabilities.Image || caps.PromptCapabilities.Audio {
		t.Fatalf("initialize = %+v", init)
	}
	sess, err := w.NewSession(ctx, sdk.NewSessionRequest{Cwd: ws.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if sess.Modes == nil || sess.Modes.CurrentModeId != "default" || !hasMode(sess.Modes, "plan") {
		t.Fatalf("modes = %+v", sess.Modes)
	}

	// 1. The write asks; the request carries the diff; allowing it writes.
	done := w.promptAsync(ctx, sess.SessionId, "write the notes")
	ask := <-w.client.asks
	call := ask.req.ToolCall
	notes := filepath.Join(ws.root, "notes.txt")
	if call.ToolCallId != "w1" || len(call.Content) != 1 || call.Content[0].Diff == nil {
		t.Fatalf("permission request = %+v", ask.req)
	}
	if d := call.Content[0].Diff; d.Path != notes || d.NewText != "hello\n" || d.OldText != nil {
		t.Fatalf("diff = %+v, want the new file %s", d, notes)
	}
	if got := optionKinds(ask.req.Options); got != "allow_once allow_always reject_once" {
		t.Fatalf("options = %s", got)
	}
	if _, err := os.Stat(notes); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the file exists before the answer: %v", err)
	}
	ask.answer <- selected("allow-once")
	r := <-done
	if r.err != nil || r.resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v", r.resp, r.err)
	}
	// Two model calls of 10 in and 5 out each.
	if u := r.resp.Usage; u == nil || u.InputTokens != 20 || u.OutputTokens != 10 || u.TotalTokens != 30 {
		t.Fatalf("usage = %+v", u)
	}
	if got := ws.read("notes.txt"); got != "hello\n" {
		t.Fatalf("notes.txt = %q", got)
	}
	first := w.client.seen()
	if got := describe(first); got != "tool_call w1 pending edit | tool_call_update w1 completed diff | agent_message_chunk wrote it" {
		t.Fatalf("updates = %s", got)
	}
	if tc := first[0].ToolCall; len(tc.Locations) != 1 || tc.Locations[0].Path != notes || !strings.Contains(rawJSON(t, tc.RawInput), `"path":"notes.txt"`) {
		t.Fatalf("tool call = %+v", tc)
	}

	// 2. A call that runs until the editor cancels.
	done = w.promptAsync(ctx, sess.SessionId, "wait")
	<-ws.blocking
	if err := w.Cancel(ctx, sdk.CancelNotification{SessionId: sess.SessionId}); err != nil {
		t.Fatal(err)
	}
	r = <-done
	if r.err != nil || r.resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("cancelled prompt = %+v, %v", r.resp, r.err)
	}
	second := w.client.seen()[len(first):]
	if got := describe(second); !strings.HasPrefix(got, "tool_call b1 pending other | tool_call_update b1 failed") {
		t.Fatalf("updates = %s", got)
	}

	// 3. The guard refuses: failed, with the reason, and nobody is asked.
	mark := len(w.client.seen())
	r = <-w.promptAsync(ctx, sess.SessionId, "clean up")
	if r.err != nil || r.resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v", r.resp, r.err)
	}
	third := w.client.seen()[mark:]
	if got := describe(third); got != "tool_call g1 pending execute | tool_call_update g1 failed text | agent_message_chunk the guard refused" {
		t.Fatalf("updates = %s", got)
	}
	if text := third[1].ToolCallUpdate.Content[0].Content.Content.Text.Text; !strings.HasPrefix(text, "Denied by guard:") || !strings.Contains(text, "rm -rf build") {
		t.Fatalf("denial = %q", text)
	}
	if len(w.client.asks) != 0 || ws.bashRuns.Load() != 0 {
		t.Fatalf("asks left %d, bash runs %d", len(w.client.asks), ws.bashRuns.Load())
	}
	if err := w.hangUp(); err != nil {
		t.Fatalf("Serve after the client hung up: %v", err)
	}
}

// Cancelling while a permission request is open takes the request back
// from the editor; the call never runs.
func TestCancelWithdrawsTheOpenPermissionRequest(t *testing.T) {
	ws := newWorkspace(t)
	w := connect(t, ws.opener(t, resp(toolCall("w1", "write", `{"path":"a.txt","content":"x"}`))))
	sess := w.open(t, ws.root)
	done := w.promptAsync(t.Context(), sess.SessionId, "write")
	ask := <-w.client.asks
	if err := w.Cancel(t.Context(), sdk.CancelNotification{SessionId: sess.SessionId}); err != nil {
		t.Fatal(err)
	}
	// The agent abandons the request: the editor's handler is cancelled.
	<-ask.ctx.Done()
	r := <-done
	if r.err != nil || r.resp.StopReason != sdk.StopReasonCancelled {
		t.Fatalf("prompt = %+v, %v", r.resp, r.err)
	}
	if _, err := os.Stat(filepath.Join(ws.root, "a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the withdrawn write ran: %v", err)
	}
}

// The session modes are the permission modes: choosing one switches the
// session's mode at once, and the session reports it back. The agent
// variants are the "agent" config option.
func TestModesArePermissionModesAndAgentsAConfigOption(t *testing.T) {
	ws := newWorkspace(t)
	w := connect(t, ws.opener(t))
	sess := w.open(t, ws.root)
	if !hasMode(sess.Modes, "accept-edits") || !hasMode(sess.Modes, "plan") || hasMode(sess.Modes, "review") {
		t.Fatalf("modes = %+v", sess.Modes)
	}
	if len(sess.ConfigOptions) != 1 || sess.ConfigOptions[0].Select == nil || sess.ConfigOptions[0].Select.Id != "agent" ||
		sess.ConfigOptions[0].Select.CurrentValue != "default" {
		t.Fatalf("config options = %+v", sess.ConfigOptions)
	}
	if _, err := w.SetSessionMode(t.Context(), sdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	u := w.client.waitFor(0, func(u sdk.SessionUpdate) bool { return u.CurrentModeUpdate != nil })
	if u.CurrentModeUpdate.CurrentModeId != "plan" {
		t.Fatalf("mode update = %+v", u.CurrentModeUpdate)
	}
	for mode, want := range map[string]string{"turbo": "the modes are default, accept-edits and plan", "review": `"agent" config option`} {
		_, err := w.SetSessionMode(t.Context(), sdk.SetSessionModeRequest{SessionId: sess.SessionId, ModeId: sdk.SessionModeId(mode)})
		var re *sdk.RequestError
		if !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(re.Message, want) {
			t.Fatalf("mode %s: %v", mode, err)
		}
	}

	set := sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{SessionId: sess.SessionId, ConfigId: "agent", Value: "review"}}
	resp, err := w.SetSessionConfigOption(t.Context(), set)
	if err != nil || resp.ConfigOptions[0].Select.CurrentValue != "review" {
		t.Fatalf("set agent: %+v, %v", resp, err)
	}
	u = w.client.waitFor(0, func(u sdk.SessionUpdate) bool { return u.ConfigOptionUpdate != nil })
	if got := u.ConfigOptionUpdate.ConfigOptions[0].Select.CurrentValue; got != "review" {
		t.Fatalf("config update = %q", got)
	}
	set.ValueId.Value = "turbo"
	if _, err := w.SetSessionConfigOption(t.Context(), set); err == nil || !strings.Contains(err.Error(), "review") {
		t.Fatalf("unknown agent: %v", err)
	}
}

func hasMode(m *sdk.SessionModeState, id string) bool {
	for _, mode := range m.AvailableModes {
		if string(mode.Id) == id {
			return true
		}
	}
	return false
}

func optionKinds(opts []sdk.PermissionOption) string {
	kinds := make([]string, len(opts))
	for i, o := range opts {
		kinds[i] = string(o.Kind)
	}
	return strings.Join(kinds, " ")
}

func rawJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// describe renders updates one per entry, for comparing sequences.
func describe(us []sdk.SessionUpdate) string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = describeOne(u)
	}
	return strings.Join(out, " | ")
}

func describeOne(u sdk.SessionUpdate) string {
	switch {
	case u.AgentMessageChunk != nil:
		return "agent_message_chunk " + blockText(u.AgentMessageChunk.Content)
	case u.AgentThoughtChunk != nil:
		return "agent_thought_chunk " + blockText(u.AgentThoughtChunk.Content)
	case u.UserMessageChunk != nil:
		return "user_message_chunk " + blockText(u.UserMessageChunk.Content)
	case u.ToolCall != nil:
		return "tool_call " + string(u.ToolCall.ToolCallId) + " " + string(u.ToolCall.Status) + " " + string(u.ToolCall.Kind)
	case u.ToolCallUpdate != nil:
		s := "tool_call_update " + string(u.ToolCallUpdate.ToolCallId)
		if u.ToolCallUpdate.Status != nil {
			s += " " + string(*u.ToolCallUpdate.Status)
		}
		for _, c := range u.ToolCallUpdate.Content {
			switch {
			case c.Diff != nil:
				s += " diff"
			case c.Content != nil:
				s += " text"
			}
		}
		return s
	case u.Plan != nil:
		return "plan"
	case u.CurrentModeUpdate != nil:
		return "current_mode_update " + string(u.CurrentModeUpdate.CurrentModeId)
	}
	return "other"
}

func blockText(b sdk.ContentBlock) string {
	if b.Text != nil {
		return strings.TrimSpace(b.Text.Text)
	}
	return "(not text)"
}
