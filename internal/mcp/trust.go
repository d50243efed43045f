package mcp

import "github.com/shiro-neko/shiro/internal/trust"

// Approval is the person's consent to one project server's definition.
type Approval = trust.Approval

// Trust is the record of approved project servers (mcp-trust.json), kept
// under $SHIRO_HOME where no project can write: a file must not decide
// its own trust. It is the shared approval store (internal/trust), which
// re-reads the file on every lookup, so an approval given with `shiro mcp
// approve` while a session runs counts from that session's next turn.
type Trust = trust.Store

// NewTrust returns the store at path; a missing file means nothing is
// approved yet.
func NewTrust(path string) *Trust { return trust.New(path, "project MCP server") }
