package commands_test

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/commands"
)

// The fakeHost of the other tests has the workflow off; workflowHost sets
// a state of its own.
func (h *fakeHost) Workflow() commands.WorkflowState { return commands.WorkflowState{MaxNudges: 3} }

func (h *fakeHost) LSP() string { return "lsp: no language server for this workspace" }

type workflowHost struct {
	*fakeHost
	state commands.WorkflowState
}

func (h workflowHost) Workflow() commands.WorkflowState { return h.state }

func TestWorkflowShowsThePolicyAndTheNudgeCount(t *testing.T) {
	cases := []struct {
		name  string
		state commands.WorkflowState
		want  []string
	}{
		{"off", commands.WorkflowState{MaxNudges: 3},
			[]string{"workflow: off (config workflow.enabled is false): no policy in the prompt, no nudges"}},
		{"outside git", commands.WorkflowState{Enabled: true, DocsDir: "docs", MaxNudges: 3},
			[]string{"workflow: on", "policy: not in the prompt: the workspace is not in a git repository", "nudges: 0/3 sent this session"}},
		{"nothing tracked", commands.WorkflowState{Enabled: true, GitRoot: "/repo", DocsDir: "notes", MaxNudges: 3},
			[]string{"workflow: on", "policy: not in the prompt: /repo has no TODO.md, ROADMAP.md or notes/ (/init scaffold or shiro --init-scaffold writes them)", "nudges: 0/3 sent this session"}},
		{"tracked, nudged twice", commands.WorkflowState{Enabled: true, GitRoot: "/repo", Trackers: []string{"TODO.md", "docs/"}, DocsDir: "docs", Nudges: 2, MaxNudges: 3},
			[]string{"workflow: on", "policy: in the prompt: /repo tracks its progress in TODO.md, docs/", "nudges: 2/3 sent this session"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := commands.New(workflowHost{&fakeHost{}, c.state}, conversationOf(workflowHost{&fakeHost{}, c.state})).Run(t.Context(), "/workflow")
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Split(out.Output, "\n"); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got:\n%s\nwant:\n%s", out.Output, strings.Join(c.want, "\n"))
			}
		})
	}
}

func TestWorkflowIsListedAndRunsAtOnce(t *testing.T) {
	s := commands.New(&fakeHost{}, conversationOf(&fakeHost{}))
	if !s.Immediate("/workflow") {
		t.Error("/workflow only shows something: it should run at once")
	}
	for _, c := range s.List() {
		if c.Name == "workflow" {
			return
		}
	}
	t.Fatal("/workflow is not in the command list")
}
