// Package mcp connects a session to Model Context Protocol servers, on the
// official Go SDK, and turns what they offer into shiro's own terms: each
// server tool becomes a tool.Tool named mcp__<server>__<tool> that meets
// the same gate as every other tool, a server's prompts become slash
// commands, and its resources can be attached to a turn as @server:uri.
//
// # Where servers come from, and trust
//
// Definitions come from the user's config (mcpServers), from files named
// with --mcp-config, from the editor (ACP session/new) and from a project's
// .mcp.json, in the shape Claude Code uses. A project's servers run code on
// the person's machine, so one starts only once the person approved its
// definition; the approval is bound to a digest of the definition as
// written (Trust), and a changed definition needs approval again.
//
// # Lifecycle
//
// Servers start lazily, in parallel, at the first turn (or the first use
// of a prompt or resource), each within a start timeout. A server that
// stops is reported once, its tools say so when called, and it is started
// again on the next use, no sooner than its backoff allows. stdio servers
// run through internal/proc with the workspace's Launcher, in a process
// group of their own that dies with the session; their stderr goes to a
// log file, never the screen. notifications/tools/list_changed takes
// effect at the next turn boundary.
//
// # Token economy
//
// When the servers' tool schemas together exceed a budget, the session is
// offered two tools instead of every server tool: mcp_search, which finds
// server tools by name and description, and mcp_call, which calls one by
// name. A call through mcp_call is judged and run as the server tool it
// names (agent.Forwarder), so rules, hooks and plugins see the real tool.
package mcp
