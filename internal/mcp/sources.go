package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"

	"github.com/shiro-neko/shiro/internal/strictjson"
)

// Sources are where a session's servers are defined. When two define the
// same name, the first in this order wins: the editor's, files named with
// --mcp-config, the user's config, the project's .mcp.json.
type Sources struct {
	Client []Def
	Files  []string
	// User is the mcpServers object of the user's config, in UserFile.
	User     json.RawMessage
	UserFile string
	// ProjectFile is the project's .mcp.json; a missing file defines none.
	ProjectFile string
}

// Collect reads every source. A file named with --mcp-config or the user's
// config that cannot be honoured is an error; a project's .mcp.json that
// cannot is a warning, and its servers are left out, so a broken file in a
// cloned repository does not keep shiro from starting there.
func Collect(src Sources) ([]Def, []string, error) {
	var all []Def
	var warnings []string
	all = append(all, src.Client...)
	for _, f := range src.Files {
		ds, warns, err := ReadFile(f, OriginFlag)
		if err != nil {
			return nil, nil, fmt.Errorf("--mcp-config: %w", err)
		}
		all, warnings = append(all, ds...), append(warnings, warns...)
	}
	ds, warns, err := ParseServers(src.UserFile, "mcpServers", OriginUser, src.User)
	if err != nil {
		return nil, nil, err
	}
	all, warnings = append(all, ds...), append(warnings, warns...)
	if src.ProjectFile != "" {
		ds, warns, err := ReadFile(src.ProjectFile, OriginProject)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			warnings = append(warnings, err.Error()+" (its servers are not started)")
		default:
			all, warnings = append(all, ds...), append(warnings, warns...)
		}
	}
	var out []Def
	for _, d := range all {
		i := slices.IndexFunc(out, func(o Def) bool { return o.Name == d.Name })
		if i >= 0 {
			warnings = append(warnings, fmt.Sprintf("MCP server %s from %s is left out: %s defines a server of that name", d.Name, d.Source, out[i].Source))
			continue
		}
		out = append(out, d)
	}
	return out, warnings, nil
}

// ReadFile reads a file in the shape of Claude Code's .mcp.json:
// {"mcpServers": {name: definition}}.
func ReadFile(path string, origin Origin) ([]Def, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if err := strictjson.Check(data); err != nil {
		return nil, nil, fmt.Errorf("%s is not valid JSON (%v)", path, err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil || top == nil {
		return nil, nil, fmt.Errorf("%s should be a JSON object with mcpServers", path)
	}
	var warnings []string
	for k := range top {
		if k != "mcpServers" {
			warnings = append(warnings, fmt.Sprintf("%s: unknown key %q ignored", path, k))
		}
	}
	slices.Sort(warnings)
	ds, warns, err := ParseServers(path, "mcpServers", origin, top["mcpServers"])
	return ds, append(warnings, warns...), err
}
