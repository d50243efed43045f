package mcp

import (
	"fmt"
	"strings"
	"text/tabwriter"
)

// ServerStatus is one server as /mcp and `shiro mcp list` show it.
type ServerStatus struct {
	Name      string `json:"name"`
	Origin    Origin `json:"origin"`
	Source    string `json:"source"`
	Transport string `json:"transport"`
	State     State  `json:"state"`
	Error     string `json:"error,omitempty"`
	Tools     int    `json:"tools"`
	// SchemaBytes is what the server's tools cost every request when
	// offered directly: names, descriptions and input schemas.
	SchemaBytes int    `json:"schemaBytes"`
	Prompts     int    `json:"prompts"`
	Resources   bool   `json:"resources"`
	Digest      string `json:"digest"`
	Log         string `json:"log"`
}

// Report is every server, and how their tools are offered.
type Report struct {
	Servers []ServerStatus `json:"servers"`
	// Meta is true when the tools are offered through mcp_search and
	// mcp_call because their schemas exceed Budget.
	Meta        bool `json:"meta"`
	Budget      int  `json:"budget"`
	SchemaBytes int  `json:"schemaBytes"`
}

// Status reports every server. It starts none.
func (m *Manager) Status() Report {
	m.mu.Lock()
	bytes, meta := m.bytes, m.meta
	m.mu.Unlock()
	r := Report{Meta: meta, Budget: m.budget}
	for _, s := range m.servers {
		snap := s.snapshot()
		ss := ServerStatus{
			Name: s.def.Name, Origin: s.def.Origin, Source: s.def.Source, Transport: s.def.Launch.Transport(),
			State: snap.state, Tools: snap.tools, Prompts: snap.prompts, Resources: snap.resources,
			SchemaBytes: bytes[s.def.Name], Digest: s.def.Digest, Log: m.logs.path(s.def.Name),
		}
		if snap.err != nil {
			ss.Error = snap.err.Error()
		}
		r.SchemaBytes += ss.SchemaBytes
		r.Servers = append(r.Servers, ss)
	}
	return r
}

// Table renders the report for people.
func (r Report) Table() string {
	if len(r.Servers) == 0 {
		return "no MCP servers are configured (mcpServers in your config, a project's .mcp.json, or --mcp-config FILE); see docs/mcp.md"
	}
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tORIGIN\tTRANSPORT\tSTATE\tTOOLS\tSCHEMA BYTES\tPROMPTS")
	for _, s := range r.Servers {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%d\t%d\n", s.Name, s.Origin, s.Transport, s.State, s.Tools, s.SchemaBytes, s.Prompts)
	}
	_ = tw.Flush()
	for _, s := range r.Servers {
		if s.Error != "" {
			fmt.Fprintf(&b, "\n%s: %s", s.Name, s.Error)
		}
	}
	mode := "each tool is offered directly"
	if r.Meta {
		mode = "over the budget: the model finds tools with " + SearchToolName + " and calls them with " + CallToolName
	}
	fmt.Fprintf(&b, "\n\nschema bytes %d of a %d-byte budget (mcp.directToolBudgetBytes): %s", r.SchemaBytes, r.Budget, mode)
	return strings.TrimRight(b.String(), "\n")
}

// ToolSummary is one server tool as `shiro mcp get` lists it.
type ToolSummary struct {
	Name        string
	Bytes       int
	Description string
}

// ServerTools lists the tools of one server as of the last turn boundary.
func (m *Manager) ServerTools(server string) []ToolSummary {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []ToolSummary
	for _, t := range m.current {
		if st, ok := t.(*serverTool); ok && st.srv.def.Name == server {
			out = append(out, ToolSummary{Name: st.info.Name, Bytes: st.bytes, Description: st.info.Description})
		}
	}
	return out
}
