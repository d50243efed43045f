package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/shiro-neko/shiro/internal/agent"
	"github.com/shiro-neko/shiro/internal/tool"
)

// runCustom expands a custom command into the prompt of the next turn:
// the arguments go in for $ARGUMENTS and $1, $2…, then each !`cmd` is run
// as a shell tool call the session makes — through the whole gate, shown
// like any call, asked about when the rules say so — and replaced by its
// output alone (with a note when it exits non-zero). A refused command,
// or one the tool could not run, fails the custom command, and no prompt
// is sent. The command's model, if it names one, is used for that
// turn only. allowed-tools grants nothing: every call the turn makes still
// passes the gate (a file in a repository cannot widen what shiro may do).
func (s *Set) runCustom(ctx context.Context, c *customCommand, args string) (agent.CommandOutcome, error) {
	prompt := expandArguments(c.body, args)
	prompt, err := s.runInlineCommands(ctx, c, prompt)
	if err != nil {
		return agent.CommandOutcome{}, err
	}
	return agent.CommandOutcome{Prompt: prompt, Model: c.model}, nil
}

// argumentRef is $ARGUMENTS or $N.
var argumentRef = regexp.MustCompile(`\$(ARGUMENTS|[0-9]+)`)

// expandArguments puts args into body. Positional arguments are the
// words of args; one that was not given is empty. Arguments given to a
// command that has no placeholder are added after its prompt, so nothing
// typed is lost.
func expandArguments(body, args string) string {
	args = strings.TrimSpace(args)
	words := strings.Fields(args)
	used := false
	out := argumentRef.ReplaceAllStringFunc(body, func(ref string) string {
		used = true
		if ref == "$ARGUMENTS" {
			return args
		}
		n, _ := strconv.Atoi(ref[1:])
		if n >= 1 && n <= len(words) {
			return words[n-1]
		}
		return ""
	})
	if !used && args != "" {
		out += "\n\n" + args
	}
	return out
}

// inlineCommand is !`command` in a custom command's body.
var inlineCommand = regexp.MustCompile("!`([^`\n]+)`")

// runInlineCommands replaces each !`cmd` with what the shell tool made of
// it, in order.
func (s *Set) runInlineCommands(ctx context.Context, c *customCommand, prompt string) (string, error) {
	matches := inlineCommand.FindAllStringSubmatchIndex(prompt, -1)
	if len(matches) == 0 {
		return prompt, nil
	}
	shell := s.host.ShellTool()
	if shell == "" {
		return "", fmt.Errorf("/%s runs commands (!`…`), and this session has no tool that runs them", c.name)
	}
	var b strings.Builder
	last := 0
	for _, m := range matches {
		b.WriteString(prompt[last:m[0]])
		line := strings.TrimSpace(prompt[m[2]:m[3]])
		input, _ := json.Marshal(map[string]string{"command": line})
		res, err := s.conv.RunCall(ctx, shell, input)
		if err != nil {
			return "", fmt.Errorf("/%s: %w", c.name, err)
		}
		b.WriteString(inlineOutput(line, res))
		last = m[1]
	}
	b.WriteString(prompt[last:])
	return b.String(), nil
}

// inlineOutput is what replaces a !`line` in the prompt: what the command
// printed, stdout then stderr, without the tool's "exit:" and stream
// labels, which are words for the model about a call it made, not text
// the command's author wrote the prompt around. A command that failed
// says so in a short note, so the prompt does not pass an error's output
// off as a result. A tool that gives no streams is taken at its text.
func inlineOutput(line string, res tool.Result) string {
	r := res.Run
	if r == nil {
		return strings.TrimRight(res.Output, "\n")
	}
	var parts []string
	for _, s := range []string{r.Stdout, r.Stderr} {
		if s = strings.TrimRight(s, "\n"); s != "" {
			parts = append(parts, s)
		}
	}
	switch {
	case r.Note != "":
		parts = append(parts, fmt.Sprintf("(%s: %s, exit status %d)", line, r.Note, r.Exit))
	case r.Exit != 0:
		parts = append(parts, fmt.Sprintf("(%s: exit status %d)", line, r.Exit))
	}
	return strings.Join(parts, "\n")
}
