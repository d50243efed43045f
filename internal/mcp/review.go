package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Pending is a project server waiting for the person's approval: new, or
// changed since it was approved.
type Pending struct {
	Name    string
	Source  string
	Digest  string
	Changed bool
	// Was is the digest approved before, for a changed server.
	Was string
	// Definition is the server's definition as written, indented.
	Definition string
	// Variables are the environment variables the definition reads.
	Variables []string
}

// Review lists the project servers that need approval before they start.
func Review(trust *Trust, root string, defs []Def) []Pending {
	var out []Pending
	for _, d := range defs {
		if !d.Origin.NeedsApproval() {
			continue
		}
		a, ok, err := trust.Lookup(root, d.Name)
		if err == nil && ok && a.Digest == d.Digest {
			continue
		}
		p := Pending{Name: d.Name, Source: d.Source, Digest: d.Digest, Variables: Variables(d)}
		if ok {
			p.Changed, p.Was = true, a.Digest
		}
		var buf bytes.Buffer
		if json.Indent(&buf, d.Raw, "", "  ") == nil {
			p.Definition = buf.String()
		} else {
			p.Definition = string(d.Raw)
		}
		out = append(out, p)
	}
	return out
}

// Describe is what a person reads before approving: where the server is
// defined, what it runs and which variables it reads.
func (p Pending) Describe() string {
	title := fmt.Sprintf("MCP server %s from %s is new: approve it to let it start", p.Name, p.Source)
	if p.Changed {
		title = fmt.Sprintf("MCP server %s from %s changed since you approved it", p.Name, p.Source)
	}
	lines := []string{title, "sha256: " + p.Digest}
	if p.Changed {
		lines = append(lines, "was:    "+p.Was)
	}
	if len(p.Variables) > 0 {
		lines = append(lines, "reads environment variables: "+strings.Join(p.Variables, ", "))
	}
	return strings.Join(lines, "\n") + "\ndefinition:\n" + p.Definition
}

// Approve records the person's approval of the project server name,
// pinned to digest: the definition they were shown. A definition that
// changed since is refused.
func Approve(trust *Trust, root string, defs []Def, name, digest string, now time.Time) error {
	for _, d := range defs {
		if d.Name != name {
			continue
		}
		if !d.Origin.NeedsApproval() {
			return fmt.Errorf("MCP server %s comes from %s, which needs no approval", name, d.Source)
		}
		if digest == "" {
			digest = d.Digest
		}
		if digest != d.Digest {
			return fmt.Errorf("MCP server %s changed since it was shown (sha256 %s, now %s): review it again", name, short(digest), short(d.Digest))
		}
		return trust.Approve(root, name, digest, now)
	}
	return fmt.Errorf("no MCP server is called %q: `shiro mcp list` shows them", name)
}

func short(digest string) string {
	if len(digest) > 12 {
		return digest[:12]
	}
	return digest
}

// Review lists this session's project servers waiting for approval.
func (m *Manager) Review() []Pending { return Review(m.trust, m.root, m.Defs()) }

// Approve approves a project server of this session; it starts at the
// next turn boundary.
func (m *Manager) Approve(name, digest string) error {
	return Approve(m.trust, m.root, m.Defs(), name, digest, m.now())
}
