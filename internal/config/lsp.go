package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
)

// LSPServer is one entry of the `lsp` object, keyed by the server's name.
// An entry named like a built-in server (gopls, typescript, pyright,
// rust-analyzer, clangd) overrides the fields it sets; any other name adds
// a server, which then needs a command and file patterns.
type LSPServer struct {
	Command string   `json:"command,omitempty"`
	Args    []string `json:"args,omitempty"`
	// Files are the base-name patterns of the files the server answers for
	// ("*.go"), in filepath.Match syntax.
	Files []string `json:"files,omitempty"`
	// InitOptions are sent as initializationOptions, as they are.
	InitOptions json.RawMessage `json:"initOptions,omitempty"`
	// Env is added to the server's environment.
	Env      map[string]string `json:"env,omitempty"`
	Disabled bool              `json:"disabled,omitempty"`
}

// checkLSPEntries decodes each raw entry of the `lsp` member on its own
// before the file is, so that a field of the wrong type is named with
// its server ("lsp.gopls.args"): decoding the whole file names only
// "lsp.args".
func checkLSPEntries(name string, member json.RawMessage) error {
	if len(member) == 0 {
		return nil
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(member, &raw); err != nil {
		return fmt.Errorf("%s: field \"lsp\" should be an object of language servers by name", name)
	}
	keys := slices.Sorted(maps.Keys(raw))
	for _, k := range keys {
		var s LSPServer
		if err := json.Unmarshal(raw[k], &s); err != nil {
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return fmt.Errorf("%s: field \"lsp.%s.%s\" should be %s, not a JSON %s", name, k, te.Field, typeName(te.Type.String()), te.Value)
			}
			return fmt.Errorf("%s: field \"lsp.%s\": %v", name, k, err)
		}
	}
	return nil
}

// checkLSP validates the `lsp` object of the file name.
func checkLSP(name string, servers map[string]LSPServer) error {
	keys := make([]string, 0, len(servers))
	for k := range servers {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		s := servers[k]
		if strings.TrimSpace(k) == "" {
			return fmt.Errorf("%s: field \"lsp\" has a server with an empty name; name each server", name)
		}
		for _, p := range s.Files {
			if _, err := filepath.Match(p, "x"); err != nil || p == "" || strings.Contains(p, "/") {
				return fmt.Errorf("%s: field \"lsp.%s.files\": %q is not a file-name pattern like \"*.go\"", name, k, p)
			}
		}
		if len(s.InitOptions) > 0 && !json.Valid(s.InitOptions) {
			return fmt.Errorf("%s: field \"lsp.%s.initOptions\" is not valid JSON", name, k)
		}
	}
	return nil
}
