package learn

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/memory"
)

// The window of conversation the learner reads: the latest messages, and
// at most so many characters of them, newest kept.
const (
	WindowMessages = 24
	WindowChars    = 9000
	// partChars caps one tool call's input or one tool result, which are
	// context for the talk around them rather than the talk itself.
	partChars = 400
	// knownEntries is how many stored memories the prompt lists, so that
	// the model does not propose them again.
	knownEntries = 30
)

// MaxMemories and MaxSkills are the most candidates one answer may hold;
// only one memory is kept.
const (
	MaxMemories = 3
	MaxSkills   = 2
)

// candidate is a proposed memory entry.
type candidate struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// skillProposal is a proposed universal skill.
type skillProposal struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Body        string `json:"body"`
}

// proposals is the answer the learning call is asked for.
type proposals struct {
	Memories []candidate     `json:"memories"`
	Skills   []skillProposal `json:"skills"`
}

// correctionMark labels the person's corrections in the transcript, so
// that the model cannot miss them.
const correctionMark = "PERSON (correcting the agent)"

// systemPrompt tells the model what to propose. Only what the session can
// keep is asked for.
func systemPrompt(memories, skills bool) string {
	var b strings.Builder
	b.WriteString("You watch a coding agent's session with a person and pick out what is worth keeping for later sessions. ")
	b.WriteString("The strongest signal is a correction from the person (\"no, we use pnpm here\", \"don't touch generated files\"): ")
	b.WriteString("the agent got something wrong and was told what is right. Lines marked " + correctionMark + " are such corrections; ")
	b.WriteString("when there is one, the first memory you propose must be what it teaches, stated as the rule to follow from now on. ")
	b.WriteString("After corrections come decisions the person made, gotchas that cost time, and commands that build, test or run the project. ")
	b.WriteString("Skip what is obvious from the code, what only mattered for this one task, and what is already remembered.\n\n")
	if memories {
		fmt.Fprintf(&b, "memories: 0 to %d entries about this project, each one self-contained sentence, with kind fact, decision, gotcha or command.\n", MaxMemories)
	}
	if skills {
		fmt.Fprintf(&b, "skills: 0 to %d universal skills: a procedure the agent worked out that would help in any project, not a fact about this one. ", MaxSkills)
		b.WriteString("name is lowercase words joined by hyphens; description starts with \"Use when\"; body is markdown steps of at least 80 characters.\n")
	}
	b.WriteString("\nNever include secrets: no API keys, tokens, passwords, private keys or values from .env files, even when the conversation shows them.\n")
	b.WriteString("Most sessions have nothing worth keeping: then answer with empty lists. ")
	b.WriteString("Answer with one JSON object and nothing else: {\"memories\": [{\"kind\": \"…\", \"text\": \"…\"}], \"skills\": [{\"name\": \"…\", \"description\": \"Use when …\", \"body\": \"…\"}]}")
	return b.String()
}

// userPrompt carries the transcript and what is remembered already.
func userPrompt(transcript string, known []memory.Entry) string {
	var b strings.Builder
	if len(known) > 0 {
		b.WriteString("Already remembered (do not propose these again):\n")
		for i, e := range known {
			if i == knownEntries {
				break
			}
			fmt.Fprintf(&b, "- (%s) %s\n", e.Kind, oneLine(e.Text))
		}
		b.WriteString("\n")
	}
	b.WriteString("The latest part of the session:\n\n")
	b.WriteString(transcript)
	return b.String()
}

// transcript renders the window of history as plain lines, oldest first.
func transcript(history []llm.Message) string {
	start := max(len(history)-WindowMessages, 0)
	var lines []string
	for _, m := range history[start:] {
		lines = append(lines, render(m)...)
	}
	// Keep the newest lines that fit: the end of the talk matters most.
	total, keep := 0, len(lines)
	for keep > 0 && total+len(lines[keep-1])+1 <= WindowChars {
		keep--
		total += len(lines[keep]) + 1
	}
	if keep == len(lines) && keep > 0 {
		// The newest line alone is over the window: keep its end.
		last := lines[keep-1]
		from := len(last) - WindowChars + 1
		for from < len(last) && !isRuneStart(last[from]) {
			from++
		}
		return "…" + last[from:]
	}
	return strings.Join(lines[keep:], "\n")
}

// render is one message as transcript lines.
func render(m llm.Message) []string {
	var out []string
	for _, p := range m.Parts {
		switch p := p.(type) {
		case llm.Text:
			text := strings.TrimSpace(p.Text)
			if text == "" {
				continue
			}
			who := "AGENT"
			if m.Role == llm.RoleUser {
				who = "PERSON"
				if isCorrection(text) {
					who = correctionMark
				}
			}
			out = append(out, who+": "+text)
		case llm.ToolCall:
			out = append(out, fmt.Sprintf("AGENT called %s %s", p.Name, clip(string(p.Input), partChars)))
		case llm.ToolResult:
			status := "returned"
			if p.IsError {
				status = "failed"
			}
			out = append(out, fmt.Sprintf("TOOL %s %s: %s", p.Name, status, clip(oneLine(p.Output), partChars)))
		}
	}
	return out
}

// lastCorrection returns the person's latest message when it corrects
// the agent.
func lastCorrection(history []llm.Message) (string, bool) {
	for i := len(history) - 1; i >= 0; i-- {
		m := history[i]
		if m.Role != llm.RoleUser {
			continue
		}
		text := strings.TrimSpace(m.PlainText())
		if text == "" {
			continue // tool results travel as user messages on some wires
		}
		return text, isCorrection(text)
	}
	return "", false
}

// correctionShapes are compiled on first use, not at start-up: every
// shiro process links this package, few of them ever look for a
// correction (and the patterns cost more to compile than to match).
var correctionShapes = sync.OnceValue(func() (c struct{ open, notOpen, anywhere *regexp.Regexp }) {
	// open: the ways a correction starts.
	c.open = regexp.MustCompile(`(?i)^(no|nope|nah|wrong|incorrect|not quite|actually|don'?t|do not|never|that'?s (not|wrong)|that is (not|wrong))\b`)
	// notOpen: openings that only look like one.
	c.notOpen = regexp.MustCompile(`(?i)^(no (problem|worries|rush|need|thanks)|nope,? (that'?s|all) (fine|good)|never ?mind)\b`)
	// anywhere: phrases that say the agent did or assumed something
	// else, wherever they stand.
	c.anywhere = regexp.MustCompile(`(?i)\b(we (use|don'?t use|do not use|never use|always use)|instead of|i (said|told you|meant)|should (be|have been) using|not [^.,;]{1,30}, (but|use)|you should(n'?t| not)? have)\b`)
	return c
})

// isCorrection reports whether the person's message corrects the agent.
func isCorrection(text string) bool {
	text = strings.TrimSpace(text)
	c := correctionShapes()
	if c.notOpen.MatchString(text) {
		return false
	}
	return c.open.MatchString(text) || c.anywhere.MatchString(text)
}

// parseProposals reads the answer: a JSON object, alone or in a code
// fence or prose. Candidates past the caps are dropped.
func parseProposals(answer string) (proposals, error) {
	start, end := strings.Index(answer, "{"), strings.LastIndex(answer, "}")
	if start < 0 || end < start {
		return proposals{}, errNoJSON
	}
	var p proposals
	if err := json.Unmarshal([]byte(answer[start:end+1]), &p); err != nil {
		return proposals{}, fmt.Errorf("%w (%v)", errNoJSON, err)
	}
	if len(p.Memories) > MaxMemories {
		p.Memories = p.Memories[:MaxMemories]
	}
	if len(p.Skills) > MaxSkills {
		p.Skills = p.Skills[:MaxSkills]
	}
	return p, nil
}

// secretShapes are the forms of credentials that need no workspace file
// to be recognised: provider key prefixes and PEM blocks. Compiled on
// first use (see correctionShapes).
var secretShapes = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(sk-[A-Za-z0-9_-]{16,}|sk-ant-[A-Za-z0-9_-]{10,}|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|xox[abprs]-[A-Za-z0-9-]{10,}|AIza[0-9A-Za-z_-]{30,}|-----BEGIN [A-Z ]*PRIVATE KEY-----|(?i:(password|passwd|secret|token|api[_-]?key)\s*[:=]\s*\S{6,}))`)
})

// looksSecret reports text that holds something shaped like a credential.
func looksSecret(text string) bool { return secretShapes().MatchString(text) }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clip cuts s to n bytes at a rune boundary, marking the cut.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !isRuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }
