package lsp

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/config"
)

// Spec is one language server as the session would run it: the built-in
// definition with the user's `lsp` entry laid over it.
type Spec struct {
	Name    string
	Command string
	Args    []string
	// Files are base-name patterns ("*.go") of the files it answers for.
	Files       []string
	InitOptions json.RawMessage
	Env         map[string]string
	Disabled    bool
	// Alternatives are commands tried, in order, when Command is not on
	// PATH (basedpyright for pyright).
	Alternatives []string
}

// Handles reports whether the server answers for the file at path.
func (s Spec) Handles(path string) bool {
	base := filepath.Base(path)
	for _, p := range s.Files {
		if ok, _ := filepath.Match(p, base); ok {
			return true
		}
	}
	return false
}

// builtins are the servers shiro knows without configuration. Each is
// used only when its command is on PATH.
func builtins() []Spec {
	return []Spec{
		{Name: "gopls", Command: "gopls", Files: []string{"*.go"}},
		{Name: "typescript", Command: "typescript-language-server", Args: []string{"--stdio"},
			// Typings acquisition downloads from the network, which the
			// sandbox closes: tsserver would wait on it before its first report.
			InitOptions: json.RawMessage(`{"disableAutomaticTypingAcquisition":true}`),
			Files:       []string{"*.ts", "*.tsx", "*.js", "*.jsx", "*.mts", "*.cts", "*.mjs", "*.cjs"}},
		{Name: "pyright", Command: "pyright-langserver", Args: []string{"--stdio"}, Files: []string{"*.py", "*.pyi"},
			Alternatives: []string{"basedpyright-langserver"}},
		{Name: "rust-analyzer", Command: "rust-analyzer", Files: []string{"*.rs"}},
		{Name: "clangd", Command: "clangd", Files: []string{"*.c", "*.h", "*.cc", "*.cpp", "*.cxx", "*.hpp", "*.hh"}},
	}
}

// Specs lays the user's `lsp` entries over the built-in servers: a known
// name overrides what the entry sets, a new name adds a server. A new
// server without a command or file patterns is an error naming it.
func Specs(user map[string]config.LSPServer) ([]Spec, error) {
	out := builtins()
	names := make([]string, 0, len(user))
	for n := range user {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		u := user[n]
		i := slices.IndexFunc(out, func(s Spec) bool { return s.Name == n })
		if i < 0 {
			if !u.Disabled && (u.Command == "" || len(u.Files) == 0) {
				return nil, fmt.Errorf("config lsp.%s: a new language server needs \"command\" and \"files\" (patterns like \"*.go\")", n)
			}
			out = append(out, Spec{Name: n})
			i = len(out) - 1
		}
		s := &out[i]
		if u.Command != "" {
			s.Command, s.Alternatives = u.Command, nil
		}
		if u.Args != nil {
			s.Args = slices.Clone(u.Args)
		}
		if len(u.Files) > 0 {
			s.Files = slices.Clone(u.Files)
		}
		if len(u.InitOptions) > 0 {
			s.InitOptions = u.InitOptions
		}
		if len(u.Env) > 0 {
			s.Env = u.Env
		}
		s.Disabled = u.Disabled
	}
	return out, nil
}

// resolve finds the server's command on PATH (or one of its
// alternatives); "" when none is there.
func (s Spec) resolve(lookPath func(string) (string, error)) string {
	for _, c := range append([]string{s.Command}, s.Alternatives...) {
		if c == "" {
			continue
		}
		if p, err := lookPath(c); err == nil {
			return p
		}
	}
	return ""
}

// languageID is the LSP language identifier of a file, from its name.
func languageID(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".go":
		return "go"
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "javascriptreact"
	case ".py", ".pyi":
		return "python"
	case ".rs":
		return "rust"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh":
		return "cpp"
	}
	return strings.TrimPrefix(ext, ".")
}

// LookPath is exec.LookPath, the default way commands are found.
func LookPath(name string) (string, error) { return exec.LookPath(name) }
