package mcp

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/shiro-neko/shiro/internal/tool"
)

// mentionPattern finds @server:uri at the start of the text or after a
// blank.
func mentionPattern() *regexp.Regexp { return regexp.MustCompile(`(?:^|\s)@([A-Za-z0-9_-]+):(\S+)`) }

// Attach adds the contents of every resource the text mentions as
// @server:uri after the text, for the model to read with it; the mention
// stays where it was written. A mention of a name that is no server here
// is left alone (an e-mail address, a decorator); one whose resource
// cannot be read leaves a notice. Servers start on their first use here.
func (m *Manager) Attach(ctx context.Context, text string) (string, []string) {
	if !strings.Contains(text, "@") || len(m.servers) == 0 {
		return text, nil
	}
	var blocks, notices []string
	seen := map[string]bool{}
	for _, match := range mentionPattern().FindAllStringSubmatch(text, -1) {
		name, uri := match[1], strings.TrimRight(match[2], ".,;:!?)]}\"'")
		s, ok := m.server(name)
		if !ok || uri == "" || seen[name+":"+uri] {
			continue
		}
		seen[name+":"+uri] = true
		body, err := s.read(ctx, uri)
		if err != nil {
			notices = append(notices, fmt.Sprintf("could not attach @%s:%s: %v", name, uri, err))
			continue
		}
		blocks = append(blocks, fmt.Sprintf("[attached resource @%s:%s]\n%s\n[end of @%s:%s]", name, uri, body, name, uri))
	}
	if len(blocks) == 0 {
		return text, notices
	}
	return text + "\n\n" + strings.Join(blocks, "\n\n"), notices
}

// SplitAttached undoes Attach: the text before the first resource it
// added, and the @server:uri of each resource, in order.
func SplitAttached(expanded string) (text string, attached []string) {
	const open = "\n\n[attached resource @"
	text, rest, ok := strings.Cut(expanded, open)
	if !ok {
		return expanded, nil
	}
	for _, part := range strings.Split(open+rest, open)[1:] {
		if name, _, ok := strings.Cut(part, "]\n"); ok {
			attached = append(attached, "@"+name)
		}
	}
	return text, attached
}

// read reads one resource as text, capped like a tool's output.
func (s *server) read(ctx context.Context, uri string) (string, error) {
	cs, err := s.session(ctx)
	if err != nil {
		return "", err
	}
	s.mu.Lock()
	has := s.resources
	s.mu.Unlock()
	if !has {
		return "", fmt.Errorf("MCP server %s offers no resources", s.def.Name)
	}
	res, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
	if err != nil {
		return "", err
	}
	var parts []string
	for _, c := range res.Contents {
		parts = append(parts, renderResource(c))
	}
	if len(parts) == 0 {
		return "", fmt.Errorf("MCP server %s returned nothing for %s", s.def.Name, uri)
	}
	return tool.Cap(strings.Join(parts, "\n")), nil
}
