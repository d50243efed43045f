package cli

import (
	"encoding/json"

	"github.com/spf13/pflag"

	"github.com/shiro-neko/shiro/internal/acp"
	"github.com/shiro-neko/shiro/internal/mcp"
)

// mcpFlags are the MCP flags of a run (the root command and `shiro acp`).
func mcpFlags(f *pflag.FlagSet, o *runOptions) {
	f.BoolVar(&o.noMCP, "no-mcp", false, "start no MCP server")
	f.BoolVar(&o.noLSP, "no-lsp", false, "run no language server: edits report no type errors, and the language-server tools are not offered")
	f.StringArrayVar(&o.mcpConfig, "mcp-config", nil, "also use the MCP servers of this file ({\"mcpServers\":{…}}, as in .mcp.json); repeatable")
}

// acpMCPServers turns the servers an editor passed with session/new into
// definitions. The editor is the person's own tool, so its servers need no
// approval; a name that cannot name a server here is left out.
func acpMCPServers(in []acp.MCPServer) []mcp.Def {
	var out []mcp.Def
	for _, s := range in {
		var def any
		switch s := s.(type) {
		case acp.StdioServer:
			env := map[string]string{}
			for _, kv := range s.Env {
				env[kv.Name] = kv.Value
			}
			def = map[string]any{"type": "stdio", "command": s.Command, "args": s.Args, "env": env}
		case acp.HTTPServer:
			def = map[string]any{"type": "http", "url": s.URL, "headers": headers(s.Headers)}
		case acp.SSEServer:
			def = map[string]any{"type": "sse", "url": s.URL, "headers": headers(s.Headers)}
		default:
			continue
		}
		raw, err := json.Marshal(map[string]any{s.ServerName(): def})
		if err != nil {
			continue
		}
		ds, _, err := mcp.ParseServers("the editor", "mcpServers", mcp.OriginClient, raw)
		if err != nil {
			continue
		}
		out = append(out, ds...)
	}
	return out
}

func headers(hs []acp.NameValue) map[string]string {
	out := map[string]string{}
	for _, h := range hs {
		out[h.Name] = h.Value
	}
	return out
}
