package acp_test

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// An offer to allow what the sandbox refused is a permission request whose
// options name it (once, the session, the project) and become the
// decisions the session acts on.
func TestASandboxOfferIsAPermissionRequest(t *testing.T) {
	s := newScripted(sessionEvent(t.TempDir()))
	w := connect(t, openerOf(s))
	sess := w.open(t, t.TempDir())
	done := w.promptAsync(t.Context(), sess.SessionId, "go")
	next[protocol.UserTurn](t, s)
	s.emit(protocol.TurnStartEvent{Turn: 1, Text: "go"})
	refusal := &protocol.SandboxRefusal{Path: "/h/.cache/go-build", Shown: "~/.cache/go-build"}
	for i, c := range []struct {
		option string
		want   protocol.Decision
	}{{"allow-project", protocol.Project}, {"allow-always", protocol.Always}, {"allow-once", protocol.Yes}, {"reject", protocol.No}} {
		id := "approval-" + string(rune('1'+i))
		s.emit(protocol.ApprovalRequestEvent{ID: id, CallID: "c", Name: "bash", Input: []byte(`{"command":"go test ./..."}`),
			Title: "go test ./...", Kind: protocol.KindExecute, Sandbox: refusal})
		ask := <-w.client.asks
		var names []string
		for _, o := range ask.req.Options {
			names = append(names, string(o.OptionId)+"="+o.Name)
		}
		want := "allow-once=Allow writing ~/.cache/go-build once and run again|allow-always=Allow writing ~/.cache/go-build for this session|" +
			"allow-project=Allow writing ~/.cache/go-build for this project|reject=Keep it refused"
		if got := strings.Join(names, "|"); got != want {
			t.Fatalf("options = %s", got)
		}
		if text := ask.req.ToolCall.Content[0].Content.Content.Text.Text; !strings.Contains(text, "sandbox refused this command writing ~/.cache/go-build") {
			t.Fatalf("content = %q", text)
		}
		ask.answer <- selected(c.option)
		if a := next[protocol.Approval](t, s); a.ID != id || a.Decision != c.want {
			t.Fatalf("%s: approval = %+v, want %s", c.option, a, c.want)
		}
	}
	s.emit(protocol.DoneEvent{})
	<-done
}
