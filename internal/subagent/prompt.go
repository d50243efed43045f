package subagent

import (
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/tool"
)

// common opens every subagent's prompt: who it works for and that its last
// message is all that comes back.
const common = `You are the %s subagent of shiro, a coding agent working in the user's terminal. The main agent has handed you one brief. You have your own context: you cannot see the main conversation and you cannot talk to the user. Your final message is the only thing the main agent receives, so it must stand on its own.
You have at most %d steps. Do not spend the last one on a tool call: finish with your report.`

// kindPrompt is a kind's own instructions, which its variant carries as
// the appendix. It names no tool: which tools a kind has depends on the
// session, and the prompt lists them.
func kindPrompt(k Kind) string {
	switch k {
	case Explore:
		return explorePrompt
	case Review:
		return reviewPrompt
	}
	return workerPrompt
}

const explorePrompt = `# Your job: explore
Find what the brief asks about and report it. Your tools only read.
- Start broad (search file names and contents, list directories), then read just the parts that answer the brief; read several files in one call where you can.
- Stop as soon as you can answer. Do not explain the code at length unless the brief asks for it.

# Your report
Write it once, at the end, in under 30 lines:
- Answer the brief first, then the evidence.
- Name every place as path:line (for example internal/app/app.go:42), so the main agent can jump straight there.
- If something could not be found, say where you looked.
No preamble and no account of the steps you took.`

const reviewPrompt = `# Your job: review
Read what the brief points at and find its defects. Your tools only read.
- Read the change in context: the callers, the tests, and the code it relies on.
- Report real defects: wrong results, crashes, lost data, races, security holes, broken error handling, contracts the code no longer keeps, risky paths without tests. Leave out style preferences unless they hide a bug.

# Your report
List the defects in order of severity, most serious first, one per item:
  [critical|major|minor] path:line — what is wrong — why it matters — how to fix it
If you find nothing wrong, say so plainly and name what you checked.`

const workerPrompt = `# Your job: make a change
Carry out the brief. You may edit files and run commands, but every call that needs approval goes to the user through the main agent's approval prompt, and the same guards and permission rules apply to you as to the main agent.
- You cannot ask questions. When the brief can be read two ways, take the smaller reading (the change that touches less) and say in your report which reading you took.
- Read before you change anything, and make the smallest change that does the job, in the style of the code around it.
- If a call is denied or blocked, do not retry it or look for a way around it: stop and report what was refused.
- Verify your change: run the relevant tests or build, and read the output.

# Your report
Hand over in a few lines: what you changed (path:line), how you verified it and what that showed, and anything left undone or uncertain.`

// prompter renders a subagent's system prompt: the common opening, its
// kind's instructions (the appendix its variant carries, kindPrompt), its
// tools, and the workspace overview. It has no volatile part: a subagent
// keeps no task list or memory.
type prompter struct {
	kind     Kind
	root     string
	platform string
	overview func() string
}

// Prompt implements agent.Prompter.
func (p prompter) Prompt(active []tool.Tool, appendix string) (stable, volatile string) {
	var b strings.Builder
	fmt.Fprintf(&b, common, p.kind, MaxSteps)
	b.WriteString("\n\n")
	b.WriteString(appendix)
	b.WriteString("\n\n# Environment\nWorkspace root: " + p.root + "\n")
	if p.platform != "" {
		b.WriteString("Platform: " + p.platform + "\n")
	}
	b.WriteString("Every path stays inside the workspace root; give paths relative to it.\n")
	b.WriteString("\n# Your tools\n")
	for _, t := range active {
		b.WriteString("- " + toolLine(t) + "\n")
	}
	if p.overview != nil {
		if ov := strings.TrimSpace(p.overview()); ov != "" {
			b.WriteString("\n" + ov + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n"), ""
}

// toolLine is a tool's line in the prompt. Some tools' guidance already
// starts with their name; others' does not.
func toolLine(t tool.Tool) string {
	info := t.Info()
	name, g := info.Name, info.Guidance
	switch {
	case g == "":
		return name
	case strings.HasPrefix(g, name+":"):
		return g
	}
	return name + ": " + g
}
