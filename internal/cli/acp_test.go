package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// `shiro acp` end to end, as an editor runs it: the real composition root
// behind the ACP server, a write that asks, the editor allowing it, the
// bytes on disk.
func TestACPCommandServesAnEditor(t *testing.T) {
	work := t.TempDir()
	home := t.TempDir()
	cassette := filepath.Join(t.TempDir(), "c.jsonl")
	if err := os.WriteFile(cassette, []byte(
		`{"parts":[{"type":"tool-call","id":"w1","name":"write_file","input":{"path":"notes.txt","content":"from the editor\n"}},{"type":"finish","reason":"tool-use"}]}`+"\n"+
			`{"parts":[{"type":"text-delta","text":"written"},{"type":"finish","reason":"end"}]}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	agentIn, toAgent := io.Pipe()
	fromAgent, agentOut := io.Pipe()
	var errb strings.Builder
	stdio := IO{
		In: agentIn, Out: agentOut, Err: &syncWriter{b: &errb},
		Getenv: func(k string) string { return map[string]string{"SHIRO_HOME": home, "HOME": home}[k] },
		Getwd:  func() (string, error) { return work, nil },
	}
	code := make(chan int, 1)
	go func() {
		code <- Run(t.Context(), []string{"acp", "--provider", "replay", "--cassette", cassette}, stdio)
		agentOut.Close()
	}()
	ed := &acpEditor{asks: make(chan sdk.RequestPermissionRequest, 4), release: make(chan struct{})}
	conn := sdk.NewClientSideConnection(ed, toAgent, fromAgent)
	ctx := t.Context()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	sess, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: work, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan sdk.PromptResponse, 1)
	go func() {
		r, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("write the notes")}})
		if err != nil {
			t.Error(err)
		}
		done <- r
	}()
	ask := <-ed.asks
	if ask.ToolCall.ToolCallId != "w1" || len(ask.ToolCall.Content) == 0 || ask.ToolCall.Content[0].Diff == nil {
		t.Fatalf("permission request = %+v", ask)
	}
	if _, err := os.Stat(filepath.Join(work, "notes.txt")); !os.IsNotExist(err) {
		t.Fatal("written before the editor answered")
	}
	ed.answer = "allow-once"
	ed.release <- struct{}{}
	if r := <-done; r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", r.StopReason)
	}
	if b, err := os.ReadFile(filepath.Join(work, "notes.txt")); err != nil || string(b) != "from the editor\n" {
		t.Fatalf("notes.txt = %q, %v", b, err)
	}
	// A slash command from the editor's menu runs as a command: the
	// cassette has no third answer, so a turn to the model would fail.
	before := ed.said()
	r, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sess.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("/cost")}})
	if err != nil || r.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("/cost answered %+v, %v", r, err)
	}
	if out := strings.TrimPrefix(ed.said(), before); !strings.Contains(out, "token") {
		t.Fatalf("/cost showed %q", out)
	}
	toAgent.Close()
	if c := <-code; c != 0 {
		t.Fatalf("exit %d: %s", c, errb.String())
	}
}

// acpEditor is the smallest editor: it hands permission requests to the
// test and answers with the option the test sets.
type acpEditor struct {
	asks    chan sdk.RequestPermissionRequest
	release chan struct{}
	answer  string

	mu   sync.Mutex
	text strings.Builder // the agent's messages so far
}

// said is everything the agent has said in messages so far.
func (e *acpEditor) said() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.text.String()
}

func (e *acpEditor) RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	e.asks <- r
	select {
	case <-e.release:
	case <-ctx.Done():
		return sdk.RequestPermissionResponse{}, ctx.Err()
	}
	return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{
		Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(e.answer)}}}, nil
}

func (e *acpEditor) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	if c := n.Update.AgentMessageChunk; c != nil && c.Content.Text != nil {
		e.mu.Lock()
		e.text.WriteString(c.Content.Text.Text)
		e.mu.Unlock()
	}
	return nil
}

func (e *acpEditor) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsReadTextFile)
}

func (e *acpEditor) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodFsWriteTextFile)
}

func (e *acpEditor) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalCreate)
}

func (e *acpEditor) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalKill)
}

func (e *acpEditor) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalOutput)
}

func (e *acpEditor) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalRelease)
}

func (e *acpEditor) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, sdk.NewMethodNotFound(sdk.ClientMethodTerminalWaitForExit)
}
