package tool

import "github.com/shiro-neko/shiro/internal/llm"

// TurnSummary is what a finished turn did: the one summary the session
// hands whoever runs after a turn (compiled plugins, after_turn hooks,
// the workflow nudges, a subagent's report). It lives here, beside the
// tool contract, because it is a turn's calls summed up, and every one of
// its readers already speaks tool.
type TurnSummary struct {
	SessionID string
	Cwd       string
	// ToolsCalled names the tools called during the turn, in call order.
	ToolsCalled []string
	// FilesWritten are the paths the turn created, changed or deleted.
	FilesWritten []string
	// RanCommands is set when a call ran programs, whose writes no plan
	// can list (bash, run_checks).
	RanCommands bool
	Usage       llm.Usage
	Interrupted bool
}
