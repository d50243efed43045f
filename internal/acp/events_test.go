package acp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/shiro-neko/shiro/internal/acp"
	"github.com/shiro-neko/shiro/internal/protocol"
)

func sessionEvent(cwd string) protocol.SessionEvent {
	return protocol.SessionEvent{SessionID: "s1", Cwd: cwd, Model: "m", Agent: "default", Attended: true,
		Agents: []protocol.AgentInfo{{Name: "default", Description: "general"}, {Name: "plan", Description: "read-only", ReadOnly: true}}}
}

// The ask tool's question becomes a permission request with one option per
// choice; the chosen label comes back as the answer.
func TestQuestionsAreAnsweredWithTheChosenLabel(t *testing.T) {
	s := newScripted(sessionEvent(t.TempDir()))
	w := connect(t, openerOf(s))
	sess := w.open(t, t.TempDir())
	done := w.promptAsync(t.Context(), sess.SessionId, "pick")
	if turn := next[protocol.UserTurn](t, s); turn.Text != "pick" {
		t.Fatalf("turn = %+v", turn)
	}
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "pick"},
		protocol.ToolCallEvent{ID: "q1", Name: "ask", Input: []byte(`{}`), Kind: protocol.KindOther},
		protocol.QuestionEvent{ID: "question-1", CallID: "q1", Question: "Which database?",
			Options: []protocol.Option{{Label: "postgres", Detail: "the server"}, {Label: "sqlite"}}})
	ask := <-w.client.asks
	if ask.req.ToolCall.ToolCallId != "q1" || *ask.req.ToolCall.Title != "Which database?" {
		t.Fatalf("request = %+v", ask.req)
	}
	var names []string
	for _, o := range ask.req.Options {
		names = append(names, o.Name)
	}
	if !slices.Equal(names, []string{"postgres", "sqlite", "None of these: let the agent decide"}) {
		t.Fatalf("options = %q", names)
	}
	ask.answer <- selected(string(ask.req.Options[1].OptionId))
	if a := next[protocol.Answer](t, s); a.ID != "question-1" || !slices.Equal(a.Chosen, []string{"sqlite"}) || a.Dismissed {
		t.Fatalf("answer = %+v", a)
	}

	// A question without choices cannot be answered in an editor: it is
	// dismissed at once and the model decides.
	s.emit(protocol.QuestionEvent{ID: "question-2", CallID: "q1", Question: "Anything else?"})
	if a := next[protocol.Answer](t, s); a.ID != "question-2" || !a.Dismissed {
		t.Fatalf("answer = %+v", a)
	}
	s.emit(protocol.ToolResultEvent{ID: "q1", Name: "ask", Output: "sqlite"}, protocol.DoneEvent{})
	if r := <-done; r.err != nil || r.resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt = %+v, %v", r.resp, r.err)
	}
	if len(w.client.asks) != 0 {
		t.Fatal("a question without choices was put to the editor")
	}
}

// A withdrawn request is taken back from the editor, and its late answer
// is never submitted.
func TestWithdrawnRequestsAreAbandoned(t *testing.T) {
	s := newScripted(sessionEvent(t.TempDir()))
	w := connect(t, openerOf(s))
	sess := w.open(t, t.TempDir())
	done := w.promptAsync(t.Context(), sess.SessionId, "go")
	next[protocol.UserTurn](t, s)
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "go"},
		protocol.ToolCallEvent{ID: "c1", Name: "bash", Input: []byte(`{"command":"make"}`), Kind: protocol.KindExecute},
		protocol.ApprovalRequestEvent{ID: "approval-1", CallID: "c1", Name: "bash", Input: []byte(`{"command":"make"}`), Title: "make", Kind: protocol.KindExecute})
	ask := <-w.client.asks
	s.emit(protocol.WithdrawnEvent{ID: "approval-1"})
	<-ask.ctx.Done()
	// The answer comes too late: nobody submits it.
	ask.answer <- selected("allow-once")
	s.emit(protocol.ToolDeniedEvent{ID: "c1", Name: "bash", By: "user", Reason: "The turn was cancelled."}, protocol.DoneEvent{})
	<-done
	if err := w.hangUp(); err != nil {
		t.Fatal(err)
	}
	for _, op := range opsLeft(s) {
		if _, ok := op.(protocol.Approval); ok {
			t.Fatalf("a withdrawn request was answered: %+v", op)
		}
	}
}

// Plans, subagent progress, live output, notices and errors all reach the
// editor; a turn's error ends the prompt with that error.
func TestEventsBecomeUpdates(t *testing.T) {
	cwd := t.TempDir()
	s := newScripted(sessionEvent(cwd))
	w := connect(t, openerOf(s))
	sess := w.open(t, t.TempDir())
	done := w.promptAsync(t.Context(), sess.SessionId, "work")
	next[protocol.UserTurn](t, s)
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "work"},
		protocol.ReasoningEvent{Text: "thinking"},
		protocol.TasksEvent{Tasks: []protocol.Task{{Content: "read", Status: "done"}, {Content: "fix", Status: "in_progress"}, {Content: "ship", Status: "blocked", Note: "needs review"}}},
		protocol.ToolCallEvent{ID: "t1", Name: "task", Input: []byte(`{}`), Kind: protocol.KindOther},
		protocol.SubagentEvent{ID: "t1.1", CallID: "t1", Kind: "explore", Phase: protocol.SubagentStart, Text: "find the bug"},
		protocol.SubagentEvent{ID: "t1.1", CallID: "t1", Kind: "explore", Phase: protocol.SubagentStep, Text: "grep panic"},
		protocol.ToolResultEvent{ID: "t1", Name: "task", Output: "found it"},
		protocol.ToolCallEvent{ID: "b1", Name: "bash", Input: []byte(`{"command":"go test"}`), Kind: protocol.KindExecute, Title: "go test"},
		protocol.ToolOutputEvent{ID: "b1", Chunk: "ok 1\n"},
		protocol.ToolOutputEvent{ID: "b1", Chunk: "ok 2\n"},
		protocol.ToolErrorEvent{ID: "b1", Name: "bash", Error: "exit status 1"},
		protocol.NoticeEvent{Text: "retrying"},
		protocol.ErrorEvent{Error: "the model refused"},
		protocol.DoneEvent{})
	r := <-done
	var re *sdk.RequestError
	if !errors.As(r.err, &re) || !strings.Contains(re.Message, "the model refused") {
		t.Fatalf("prompt = %+v, %v", r.resp, r.err)
	}
	us := w.client.seen()
	want := "agent_thought_chunk thinking | plan | tool_call t1 pending other | tool_call_update t1 in_progress text | " +
		"tool_call_update t1 in_progress text | tool_call_update t1 completed text | tool_call b1 pending execute | " +
		"tool_call_update b1 in_progress text | tool_call_update b1 in_progress text | tool_call_update b1 failed text text | " +
		"agent_message_chunk retrying"
	if got := describe(us); got != want {
		t.Fatalf("updates:\n got %s\nwant %s", got, want)
	}
	plan := us[1].Plan.Entries
	if len(plan) != 3 || plan[0].Status != sdk.PlanEntryStatusCompleted || plan[1].Status != sdk.PlanEntryStatusInProgress ||
		plan[2].Status != sdk.PlanEntryStatusPending || plan[2].Content != "ship (blocked) — needs review" {
		t.Fatalf("plan = %+v", plan)
	}
	if got := contentText(us[4]); got != "- explore 1 · start: find the bug\n- explore 1 · step: grep panic\n" {
		t.Fatalf("subagent progress = %q", got)
	}
	if got := contentText(us[8]); got != "```\nok 1\nok 2\n```" {
		t.Fatalf("output so far = %q", got)
	}
	if got := us[9].ToolCallUpdate.Content[1].Content.Content.Text.Text; got != "exit status 1" {
		t.Fatalf("failure = %q, after the output", got)
	}
	if tc := us[6].ToolCall; tc.Title != "bash go test" {
		t.Fatalf("title = %q", tc.Title)
	}
}

// Events between prompts still reach the editor: a background command's
// life, its output, and notices.
func TestEventsBetweenPromptsAreForwarded(t *testing.T) {
	s := newScripted(sessionEvent(t.TempDir()))
	w := connect(t, openerOf(s))
	w.open(t, t.TempDir())
	s.emit(protocol.BackgroundEvent{ID: "bg1", Command: "npm run dev", State: "running", Running: 1},
		protocol.ToolOutputEvent{ID: "bg1", Chunk: "listening on :3000\n"},
		protocol.BackgroundEvent{ID: "bg1", Command: "npm run dev", State: "exited", ExitCode: 2},
		protocol.NoticeEvent{Text: "memory saved"})
	w.client.waitFor(0, func(u sdk.SessionUpdate) bool { return u.AgentMessageChunk != nil })
	us := w.client.seen()
	want := "tool_call bg1 in_progress execute | tool_call_update bg1 in_progress text | tool_call_update bg1 failed text text | agent_message_chunk memory saved"
	if got := describe(us); got != want {
		t.Fatalf("updates:\n got %s\nwant %s", got, want)
	}
	if got := us[2].ToolCallUpdate.Content[1].Content.Content.Text.Text; got != "exited with code 2" {
		t.Fatalf("end = %q", got)
	}
}

// The connection's end interrupts and shuts down every session, and
// Serve returns once they are drained.
func TestHangingUpShutsSessionsDown(t *testing.T) {
	s := newScripted(sessionEvent(t.TempDir()))
	w := connect(t, openerOf(s))
	w.open(t, t.TempDir())
	if err := w.hangUp(); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, op := range opsLeft(s) {
		types = append(types, opName(op))
	}
	if !slices.Equal(types, []string{"Interrupt", "Shutdown"}) {
		t.Fatalf("ops = %v", types)
	}
}

// Cancelling Serve's context ends it the same way, with the context's error.
func TestCancellingServeShutsSessionsDown(t *testing.T) {
	s := newScripted(sessionEvent(t.TempDir()))
	ctx, cancel := context.WithCancel(t.Context())
	w := connectWith(t, ctx, openerOf(s))
	w.open(t, t.TempDir())
	cancel()
	if err := w.wait(); !errors.Is(err, context.Canceled) {
		t.Fatalf("Serve = %v", err)
	}
	if ops := opsLeft(s); len(ops) != 2 || opName(ops[0]) != "Interrupt" || opName(ops[1]) != "Shutdown" {
		t.Fatalf("ops = %#v", ops)
	}
}

func contentText(u sdk.SessionUpdate) string {
	c := u.ToolCallUpdate.Content
	if len(c) == 0 || c[0].Content == nil || c[0].Content.Content.Text == nil {
		return ""
	}
	return c[0].Content.Content.Text.Text
}

// Each permission option becomes its decision; a cancelled request is a
// no. The "always" option names what it grants.
func TestApprovalOptionsBecomeDecisions(t *testing.T) {
	s := newScripted(sessionEvent(t.TempDir()))
	w := connect(t, openerOf(s))
	sess := w.open(t, t.TempDir())
	done := w.promptAsync(t.Context(), sess.SessionId, "go")
	next[protocol.UserTurn](t, s)
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "go"})
	for i, c := range []struct {
		outcome sdk.RequestPermissionOutcome
		want    protocol.Decision
	}{
		{selected("allow-always"), protocol.Always},
		{selected("allow-once"), protocol.Yes},
		{selected("reject"), protocol.No},
		{sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}, protocol.No},
		{selected("made-up"), protocol.No},
	} {
		id := "approval-" + string(rune('1'+i))
		s.emit(protocol.ApprovalRequestEvent{ID: id, CallID: "c", Name: "bash", Input: []byte(`{"command":"git push"}`),
			Title: "git push", Kind: protocol.KindExecute, Grants: []string{"bash(git push *)"}, Repeated: true})
		ask := <-w.client.asks
		if name := ask.req.Options[1].Name; name != "Always allow bash(git push *)" {
			t.Fatalf("always option = %q", name)
		}
		if text := ask.req.ToolCall.Content[0].Content.Content.Text.Text; !strings.Contains(text, "third identical call") {
			t.Fatalf("content = %q", text)
		}
		ask.answer <- c.outcome
		if a := next[protocol.Approval](t, s); a.ID != id || a.Decision != c.want {
			t.Fatalf("case %d: approval = %+v, want %s", i, a, c.want)
		}
	}
	s.emit(protocol.DoneEvent{})
	<-done
}

// session/new refuses a working directory that is not an absolute path to
// a directory, and hands the client's MCP servers to the session.
func TestNewSessionChecksTheWorkspaceAndPassesMCPServers(t *testing.T) {
	var got acp.NewSession
	s := newScripted(sessionEvent(t.TempDir()))
	w := connect(t, func(_ context.Context, req acp.NewSession) (acp.Session, error) {
		got = req
		return s, nil
	})
	ctx := t.Context()
	file := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, cwd := range []string{"relative/dir", filepath.Join(t.TempDir(), "missing"), file} {
		_, err := w.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: []sdk.McpServer{}})
		var re *sdk.RequestError
		if !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(re.Message, cwd) {
			t.Fatalf("cwd %q: %v", cwd, err)
		}
	}
	cwd := t.TempDir()
	servers := []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "fs", Command: "/bin/mcp-fs", Args: []string{"--root", cwd}, Env: []sdk.EnvVariable{{Name: "A", Value: "1"}}}},
		{Http: &sdk.McpServerHttpInline{Name: "docs", Type: "http", Url: "https://mcp.example.com", Headers: []sdk.HttpHeader{{Name: "X", Value: "y"}}}},
	}
	if _, err := w.NewSession(ctx, sdk.NewSessionRequest{Cwd: cwd, McpServers: servers}); err != nil {
		t.Fatal(err)
	}
	want := []acp.MCPServer{
		acp.StdioServer{Name: "fs", Command: "/bin/mcp-fs", Args: []string{"--root", cwd}, Env: []acp.NameValue{{Name: "A", Value: "1"}}},
		acp.HTTPServer{Name: "docs", URL: "https://mcp.example.com", Headers: []acp.NameValue{{Name: "X", Value: "y"}}},
	}
	if got.Cwd != cwd || !reflect.DeepEqual(got.MCPServers, want) {
		t.Fatalf("opened with %+v", got)
	}
	if log := w.log.String(); !strings.Contains(log, "connects the client's MCP servers") || !strings.Contains(log, "docs") {
		t.Fatalf("log = %s", log)
	}
}

// A prompt names an open session and carries content shiro offered.
func TestPromptRequestsAreChecked(t *testing.T) {
	s := newScripted(sessionEvent(t.TempDir()))
	w := connect(t, openerOf(s))
	sess := w.open(t, t.TempDir())
	var re *sdk.RequestError
	_, err := w.Prompt(t.Context(), sdk.PromptRequest{SessionId: "nope", Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}})
	if !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(re.Message, `"nope"`) {
		t.Fatalf("unknown session: %v", err)
	}
	_, err = w.Prompt(t.Context(), sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.AudioBlock("AAAA", "audio/wav")}})
	if !errors.As(err, &re) || re.Code != -32602 || !strings.Contains(re.Message, "audio") {
		t.Fatalf("audio prompt: %v", err)
	}
	if ops := opsLeft(s); len(ops) != 0 {
		t.Fatalf("a refused prompt reached the session: %#v", ops)
	}
}

// session/close ends the session and forgets it.
func TestCloseSessionEndsIt(t *testing.T) {
	s := newScripted(sessionEvent(t.TempDir()))
	w := connect(t, openerOf(s))
	sess := w.open(t, t.TempDir())
	if _, err := w.CloseSession(t.Context(), sdk.CloseSessionRequest{SessionId: sess.SessionId}); err != nil {
		t.Fatal(err)
	}
	if ops := opsLeft(s); len(ops) != 2 || opName(ops[1]) != "Shutdown" {
		t.Fatalf("ops = %#v", ops)
	}
	_, err := w.Prompt(t.Context(), sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}})
	if err == nil {
		t.Fatal("a closed session took a prompt")
	}
}

// A session that cannot be opened, or does not describe itself first, is
// an error naming why; a half-opened one is shut down.
func TestNewSessionReportsOpenFailures(t *testing.T) {
	w := connect(t, func(context.Context, acp.NewSession) (acp.Session, error) {
		return nil, errors.New("no provider is configured")
	})
	_, err := w.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	if err == nil || !strings.Contains(err.Error(), "no provider is configured") {
		t.Fatalf("err = %v", err)
	}

	s := newScripted(sessionEvent(t.TempDir()))
	<-s.events // take the session event out: the first event is now a notice
	s.emit(protocol.NoticeEvent{Text: "hello"})
	w = connect(t, openerOf(s))
	_, err = w.NewSession(t.Context(), sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	if err == nil || !strings.Contains(err.Error(), "first event was") || !strings.Contains(err.Error(), "notice") {
		t.Fatalf("err = %v", err)
	}
	if ops := opsLeft(s); len(ops) != 2 || opName(ops[1]) != "Shutdown" {
		t.Fatalf("the half-opened session was not shut down: %#v", ops)
	}
}
