package prompt

import (
	"strings"

	"github.com/shiro-neko/shiro/internal/tool"
)

const identity = "You are shiro, a coding agent working in the user's terminal. You read code, edit files and run commands to get the user's request done, carefully and without fuss."

const howToWork = `# How to work
- Look before you change: read the files involved and search for related code; do not guess at APIs or paths.
- Prefer the dedicated tools (read_file, grep, glob, edit_file) over shell equivalents; use bash for builds, tests and programs.
- Make the smallest change that does the job well, in the style of the surrounding code.
- Batch independent reads (read_many_files) instead of reading one file per step.
- For work with several steps, keep a task list with todo_write and mark each step as you finish it.
- Never write secrets into files, and never read .env or key files unless the user asks.`

const whenSomethingFails = `# When something fails
1. Read the whole error and find the first real cause; do not retry the same call unchanged.
2. Check your assumption with a read or a small command, then fix the cause rather than the symptom.
3. After two failed attempts at the same approach, stop, explain what you tried and what you saw, and ask or try a different route.
A refusal by the guard, a hook or a permission rule is final: do not work around it; tell the user what was refused and why.`

const workingWithUser = `# Working with the user
- Do what was asked; when a request is ambiguous and the choice matters, ask one short question instead of guessing.
- A denied tool call means the user said no: adapt, do not retry it.
- Do not commit, push or delete unless asked.`

const howToReply = `# How to reply
Be brief and concrete. Say what you changed and how you checked it, with file paths. Use markdown code blocks for code; no filler, no apologies.`

// renderStable builds the cacheable prefix. Its bytes depend only on the
// inputs keyed by the memo, never on the clock.
func renderStable(src Sources, active []tool.Tool, appendix string) string {
	var b strings.Builder
	b.WriteString(identity)
	b.WriteString("\n\n# Environment\n")
	b.WriteString("Workspace root: " + src.Root + "\n")
	if src.Platform != "" {
		b.WriteString("Platform: " + src.Platform + "\n")
	}
	b.WriteString("Every path you read or write must stay inside the workspace root; paths are relative to it.\n")
	if ov := src.Overview.text(); ov != "" {
		b.WriteString("\n" + ov + "\n")
	}
	b.WriteString("\n" + toolsSection(active))
	section(&b, howToWork)
	section(&b, src.Workflow.text())
	section(&b, whenSomethingFails)
	// What a tool says about working with it goes in only while it is
	// offered, so the prompt never describes a tool the request lacks.
	for _, t := range active {
		section(&b, t.Info().Section)
	}
	section(&b, workingWithUser)
	section(&b, howToReply)
	section(&b, src.Instructions.text())
	section(&b, src.Skills.text())
	section(&b, appendix)
	section(&b, src.Plugins.text())
	return strings.TrimRight(b.String(), "\n")
}

// volatileHeader opens the volatile part. It reaches the model on the
// newest user message rather than in the system prompt, so it says whose
// words these are.
const volatileHeader = "# Session state (kept by shiro and refreshed on every step; not a message from the user)"

// renderVolatile builds the part that changes within a session: project
// memory, then the task list, the reference's order. It is "" when both
// are empty.
func renderVolatile(src Sources) string {
	var parts []string
	for _, p := range []Part{src.Memory, src.Notebook} {
		if text := strings.TrimSpace(p.text()); text != "" {
			parts = append(parts, text)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return volatileHeader + "\n\n" + strings.Join(parts, "\n\n")
}

// Sections joins sections as the prompt separates them, leaving out the
// empty ones: the plugin appendices are one part of the prompt.
func Sections(texts []string) string {
	var b strings.Builder
	for _, s := range texts {
		section(&b, s)
	}
	return strings.TrimSpace(b.String())
}

func section(b *strings.Builder, s string) {
	s = strings.TrimSpace(s)
	if s == "" {
		return
	}
	b.WriteString("\n")
	b.WriteString(s)
	b.WriteString("\n")
}

// toolsSection gives one guidance line per offered tool, in the tools'
// order, so the prompt never describes a tool the request does not carry.
// Tools that share their guidance (the read-only git tools) share one
// line, naming them together where the first of them stands.
func toolsSection(active []tool.Tool) string {
	var b strings.Builder
	b.WriteString("# Tools available to you now\n")
	sharing := map[string][]string{}
	for _, t := range active {
		info := t.Info()
		sharing[info.Guidance] = append(sharing[info.Guidance], info.Name)
	}
	done := map[string]bool{}
	for _, t := range active {
		info := t.Info()
		g := info.Guidance
		if names := sharing[g]; g != "" && len(names) > 1 {
			if !done[g] {
				done[g] = true
				b.WriteString("- " + strings.Join(names, ", ") + ": " + g + "\n")
			}
			continue
		}
		b.WriteString("- " + guidanceLine(info.Name, g) + "\n")
	}
	return b.String()
}

// guidanceLine is a tool's line: its guidance, which by convention starts
// with "name: ", or the name and the guidance when it does not.
func guidanceLine(name, guidance string) string {
	switch {
	case guidance == "":
		return name + ": see its own description."
	case strings.HasPrefix(guidance, name+": "):
		return guidance
	}
	return name + ": " + guidance
}

func toolNames(ts []tool.Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Info().Name
	}
	return out
}
