package mcp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shiro-neko/shiro/internal/tool"
)

// PromptCommand is a server's prompt offered as the slash command
// /mcp__<server>__<prompt>.
type PromptCommand struct {
	Name    string
	Server  string
	Prompt  string
	Args    []PromptArg
	Summary string
}

// PromptArg is one argument of a prompt.
type PromptArg struct {
	Name        string
	Description string
	Required    bool
}

// Usage is the command's argument line, such as "FILE [FOCUS]".
func (c PromptCommand) Usage() string {
	var parts []string
	for _, a := range c.Args {
		u := strings.ToUpper(a.Name)
		if !a.Required {
			u = "[" + u + "]"
		}
		parts = append(parts, u)
	}
	return strings.Join(parts, " ")
}

// Prompts lists the prompts of the servers that have started, by command
// name.
func (m *Manager) Prompts() []PromptCommand {
	var out []PromptCommand
	for _, s := range m.servers {
		s.mu.Lock()
		prompts := s.prompts
		s.mu.Unlock()
		for _, p := range prompts {
			c := PromptCommand{Name: ToolName(s.def.Name, p.Name), Server: s.def.Name, Prompt: p.Name, Summary: p.Description}
			if c.Summary == "" {
				c.Summary = p.Title
			}
			if c.Summary == "" {
				c.Summary = "prompt " + p.Name + " of the MCP server " + s.def.Name
			}
			for _, a := range p.Arguments {
				if a != nil {
					c.Args = append(c.Args, PromptArg{Name: a.Name, Description: a.Description, Required: a.Required})
				}
			}
			out = append(out, c)
		}
	}
	return out
}

// RunPrompt fills the prompt the command names with args (words in the
// prompt's argument order, the last taking the rest, or name=value pairs)
// and returns the text the server made of it, to run as the next turn.
func (m *Manager) RunPrompt(ctx context.Context, command, args string) (string, error) {
	var cmd PromptCommand
	found := false
	for _, c := range m.Prompts() {
		if c.Name == command {
			cmd, found = c, true
			break
		}
	}
	if !found {
		return "", fmt.Errorf("no MCP prompt is called %s: /mcp lists the servers", command)
	}
	values, err := promptArgs(cmd, args)
	if err != nil {
		return "", err
	}
	s, _ := m.server(cmd.Server)
	cs, err := s.session(ctx)
	if err != nil {
		return "", err
	}
	res, err := cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: cmd.Prompt, Arguments: values})
	if err != nil {
		return "", fmt.Errorf("MCP server %s could not fill prompt %s: %w", cmd.Server, cmd.Prompt, err)
	}
	var parts []string
	for _, msg := range res.Messages {
		if msg == nil || msg.Content == nil {
			continue
		}
		text := renderContent(msg.Content)
		if msg.Role == "assistant" {
			text = "(the assistant, in the prompt's script:) " + text
		}
		parts = append(parts, text)
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("MCP server %s returned an empty prompt %s", cmd.Server, cmd.Prompt)
	}
	return tool.Cap(strings.Join(parts, "\n\n")), nil
}

// promptArgs reads a command line's arguments for c.
func promptArgs(c PromptCommand, line string) (map[string]string, error) {
	words, err := splitWords(line)
	if err != nil {
		return nil, err
	}
	values := map[string]string{}
	named := false
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if ok && c.hasArg(k) {
			values[k] = v
			named = true
		}
	}
	if !named {
		for i, a := range c.Args {
			if i >= len(words) {
				break
			}
			if i == len(c.Args)-1 {
				values[a.Name] = strings.Join(words[i:], " ")
				break
			}
			values[a.Name] = words[i]
		}
		if len(c.Args) == 0 && len(words) > 0 {
			return nil, fmt.Errorf("/%s takes no arguments", c.Name)
		}
	}
	for _, a := range c.Args {
		if a.Required && values[a.Name] == "" {
			return nil, fmt.Errorf("/%s needs %s: usage /%s %s", c.Name, a.Name, c.Name, c.Usage())
		}
	}
	return values, nil
}

func (c PromptCommand) hasArg(name string) bool {
	for _, a := range c.Args {
		if a.Name == name {
			return true
		}
	}
	return false
}

// splitWords splits a line on blanks, keeping what is inside single or
// double quotes together.
func splitWords(line string) ([]string, error) {
	var words []string
	var cur strings.Builder
	var quote rune
	inWord := false
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '"' || r == '\'':
			quote, inWord = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quote != 0 {
		return nil, errors.New("a quote is not closed")
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}
