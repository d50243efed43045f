package agent

import (
	"testing"

	"github.com/shiro-neko/shiro/internal/permission"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// The person's word on the wire becomes the gate's decision in one place:
// a project answer to an ask that is not a sandbox offer reaches only the
// session, and a no keeps the person's reason.
func TestReplyOfMapsThePersonsWordOnce(t *testing.T) {
	cases := []struct {
		word  protocol.Decision
		offer bool
		want  Reply
	}{
		{protocol.Yes, false, Reply{Decision: permission.Allow, Scope: ScopeOnce}},
		{protocol.Always, false, Reply{Decision: permission.Allow, Scope: ScopeSession}},
		{protocol.Project, false, Reply{Decision: permission.Allow, Scope: ScopeSession}},
		{protocol.Project, true, Reply{Decision: permission.Allow, Scope: ScopeProject}},
		{protocol.No, false, Reply{Decision: permission.Deny, By: "user", Reason: "not now"}},
	}
	for _, c := range cases {
		if got := replyOf(protocol.Approval{Decision: c.word, Reason: "not now"}, c.offer); got != c.want {
			t.Errorf("%s (offer %v) = %+v, want %+v", c.word, c.offer, got, c.want)
		}
	}
}
