package commands_test

import (
	"context"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/commands"
)

// contributing is a host that contributes one command, as the app does
// with an MCP server's prompts.
type contributing struct {
	*fakeHost
	args []string
}

func (h *contributing) ExtraCommands() []commands.Extra {
	return []commands.Extra{{Name: "mcp__srv__Review", Args: "FILE", Summary: "review a file",
		Run: func(_ context.Context, args string) (agent.CommandOutcome, error) {
			h.args = append(h.args, args)
			return agent.CommandOutcome{Prompt: "Please review " + args}, nil
		}}}
}

func TestAHostContributesCommands(t *testing.T) {
	h := &contributing{fakeHost: newHost(t)}
	set := commands.New(h, conversationOf(h))
	found := false
	for _, c := range set.List() {
		found = found || (c.Name == "mcp__srv__Review" && c.Args == "FILE" && !c.Immediate)
	}
	if !found {
		t.Fatal("the contributed command is not listed")
	}
	if set.Immediate("/mcp__srv__review main.go") {
		t.Error("a contributed command runs at once; it must wait for the running turn like a turn")
	}
	out, err := set.Run(t.Context(), "/mcp__srv__review main.go")
	if err != nil || out.Prompt != "Please review main.go" || len(h.args) != 1 {
		t.Fatalf("run = %+v, %v (args %q)", out, err, h.args)
	}
	if _, err := set.Run(t.Context(), "/mcp__srv__nope"); err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Errorf("an unknown name: %v", err)
	}
}

func TestMCPCommandWithoutServers(t *testing.T) {
	out, err := run(t, newHost(t), "/mcp")
	if err != nil || !strings.Contains(out.Output, "MCP is off") {
		t.Errorf("/mcp on a host without MCP = %q, %v", out.Output, err)
	}
}
