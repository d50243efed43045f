// Package tools is the tool belt: it assembles the built-in tool families
// for a session. With the families themselves, it is the only code that
// knows which tools exist; everything else reads what a tool says of
// itself (tool.Info), never its name.
package tools

import (
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/bash"
	"github.com/shiro-neko/shiro/internal/tools/edit"
	"github.com/shiro-neko/shiro/internal/tools/files"
	"github.com/shiro-neko/shiro/internal/tools/git"
	"github.com/shiro-neko/shiro/internal/tools/nav"
	"github.com/shiro-neko/shiro/internal/tools/patch"
	"github.com/shiro-neko/shiro/internal/tools/search"
	"github.com/shiro-neko/shiro/internal/tools/web"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Deps is what the families need from the session.
type Deps struct {
	Env *workspace.Env
	// Jobs runs background commands for bash.
	Jobs *bash.Background
	// CommitModel drafts commit messages for git; nil leaves that tool out.
	CommitModel git.CommitModel
	// WebPolicy and WebResolver replace web_fetch's address checks (tests);
	// nil keeps the defaults, which allow public addresses only.
	WebPolicy   web.AddressPolicy
	WebResolver web.Resolver
	// WebSearchURL is web_search's HTML backend ("" for the default);
	// WebSearchLocal keeps every search there, even with a provider that
	// searches itself.
	WebSearchURL   string
	WebSearchLocal bool
	// Ruled reports whether a permission rule someone wrote decides the
	// tool called name (nil: none does). A provider-run search would pass
	// no rule, so a search so ruled stays shiro's own, where the rule
	// holds, rather than the rule being skipped.
	Ruled func(name string) bool
}

// Builtin returns every built-in tool. Which are offered is decided per
// step by the session's filter (tool sets, the agent's read-only flag).
func Builtin(d Deps) []tool.Tool {
	var out []tool.Tool
	out = append(out, files.Tools(d.Env)...)
	out = append(out, edit.Tools(d.Env)...)
	out = append(out, patch.Tools(d.Env)...)
	out = append(out, search.Tools(d.Env)...)
	out = append(out, nav.Tools(d.Env)...)
	out = append(out, bash.Tools(d.Env, d.Jobs)...)
	out = append(out, bash.Checks(d.Env)...)
	out = append(out, git.Tools(d.Env, d.CommitModel)...)
	local := d.WebSearchLocal || (d.Ruled != nil && d.Ruled("web_search"))
	out = append(out, web.Tools(d.WebPolicy, d.WebResolver, web.Search{URL: d.WebSearchURL, Local: local})...)
	return out
}
