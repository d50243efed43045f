package tools

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// ToolSearchName is the name of the tool that loads on-demand tools.
const ToolSearchName = "tool_search"

// maxMatches bounds what one search loads, so that a vague query ("file")
// does not put every tool back into the request.
const maxMatches = 5

type toolSearchInput struct {
	Query string `json:"query" jsonschema:"tool names, or words for what you need (e.g. git history, background command)"`
}

// ToolSearch is the stable entry to the on-demand tools: its name and
// description, which lists loadable (the on-demand tools the session can
// load), stay the same for the whole session, so the cached prefix holds.
// demand records what was loaded, which the session's filter then offers.
func ToolSearch(demand *tool.Demand, loadable []tool.Tool) tool.Tool {
	names := make([]string, len(loadable))
	for i, t := range loadable {
		names[i] = t.Info().Name
	}
	return tool.New(tool.Def[toolSearchInput]{
		Info: tool.Info{
			Name: ToolSearchName,
			Description: "Load tools that are not in your list yet: " + strings.Join(names, ", ") +
				". Give names or words for what you need; the result shows each match's description and parameters, and you can call it from then on.",
			Guidance: "tool_search: load a tool it lists (git, line edits, background jobs, symbols…) before calling it.",
			Set:      tool.SetNone,
			Effect:   tool.KeepsState,
			Kind:     protocol.KindSearch,
			Subject:  tool.TextSubject,
			Loads:    true,
		},
		Plan: func(in *toolSearchInput) tool.Plan {
			return tool.Plan{Subjects: []string{in.Query}, Title: in.Query}
		},
		Run: func(_ context.Context, _ tool.Runtime, in *toolSearchInput) (tool.Result, error) {
			return load(demand, loadable, in.Query)
		},
	})
}

// LoadQuery loads what query matches, without a call: a resumed session
// replays its earlier searches, so that it offers what it offered before.
func LoadQuery(demand *tool.Demand, loadable []tool.Tool, query string) {
	for _, t := range matches(loadable, query) {
		demand.Load(t.Info().Name)
	}
}

func load(demand *tool.Demand, loadable []tool.Tool, query string) (tool.Result, error) {
	found := matches(loadable, query)
	if len(found) == 0 {
		names := make([]string, len(loadable))
		for i, t := range loadable {
			names[i] = t.Info().Name
		}
		return tool.Result{}, tool.Failf("no tool matches %q; the tools it can load are: %s", query, strings.Join(names, ", "))
	}
	var b strings.Builder
	for _, t := range found {
		info := t.Info()
		demand.Load(info.Name)
		fmt.Fprintf(&b, "%s: %s\nparameters: %s\n\n", info.Name, info.Description, info.Schema)
	}
	b.WriteString("These tools are loaded: call them like any other.")
	return tool.Text(b.String()), nil
}

// matches ranks the loadable tools against query: a word that is a tool's
// name picks that tool; other words of three letters or more count once
// for each tool whose name or description holds them. Ties go by name,
// so the same query always loads the same tools.
func matches(loadable []tool.Tool, query string) []tool.Tool {
	words := strings.Fields(strings.ToLower(strings.NewReplacer(",", " ", ";", " ").Replace(query)))
	type scored struct {
		t     tool.Tool
		score int
	}
	var found []scored
	for _, t := range loadable {
		info := t.Info()
		text := strings.ToLower(info.Name + " " + strings.ReplaceAll(info.Name, "_", " ") + " " + info.Description)
		score := 0
		for _, w := range words {
			switch {
			case w == info.Name:
				score += 100
			case len(w) >= 3 && strings.Contains(text, w):
				score++
			}
		}
		if score > 0 {
			found = append(found, scored{t, score})
		}
	}
	slices.SortStableFunc(found, func(a, b scored) int { return cmp.Compare(b.score, a.score) })
	out := make([]tool.Tool, 0, maxMatches)
	for _, s := range found {
		if len(out) == maxMatches && s.score < 100 {
			break
		}
		out = append(out, s.t)
	}
	return out
}
