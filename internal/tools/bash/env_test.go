package bash

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace"
)

// The environment every command gets: keys, tokens and sockets' addresses
// scrubbed, the non-interactive settings forced (workspace.CommandEnv,
// which bash and run_checks use).
func TestScrubEnvAndCommandEnv(t *testing.T) {
	in := []string{"A=1", "GROQ_API_KEY=g", "xai_api_key=x", "API_KEY=k", "ANTHROPIC_AUTH_TOKEN=t", "GITHUB_TOKEN=ghp",
		"TMUX=/tmp/tmux-0/default,1,0", "SSH_AUTH_SOCK=/tmp/a", "NOTAKEY=2", "PAGER=less", "PAGER=more", "broken"}
	if got, want := strings.Join(workspace.ScrubEnv(in, nil), " "), "A=1 NOTAKEY=2 PAGER=less PAGER=more broken"; got != want {
		t.Errorf("ScrubEnv = %q, want %q", got, want)
	}
	got := strings.Join(workspace.CommandEnv(in), " ")
	want := "A=1 NOTAKEY=2 broken GIT_EDITOR=false EDITOR=false VISUAL=false PAGER=cat GIT_PAGER=cat GIT_TERMINAL_PROMPT=0"
	if got != want {
		t.Errorf("CommandEnv = %q, want %q", got, want)
	}
}
