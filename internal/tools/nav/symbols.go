package nav

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/prose"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/tools/search"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Limits of the symbol tools.
const (
	symbolMaxHits   = 40
	symbolLineCut   = 200 // characters of a find_symbol hit
	outlineLineCut  = 120
	notFoundNames   = 20 // names listed when read_symbol finds nothing
	readSymbolLines = 1000
)

// ---- find_symbol ----

type findSymbolInput struct {
	Name    string `json:"name"`
	Include string `json:"include,omitempty" jsonschema:"glob, e.g. *.go"`
}

func findSymbolTool(env *workspace.Env, langs *rules) tool.Tool {
	return tool.New(tool.Def[findSymbolInput]{
		Info: tool.Info{
			Name:        "find_symbol",
			ByPattern:   true,
			Description: "Find where a function, type, class or constant is declared. Name may be Owner.member.",
			Guidance:    "find_symbol: jump to a declaration by name (faster than grep).",
			Set:         tool.SetNav,
			Effect:      tool.Reads,
			Kind:        protocol.KindSearch,
			Subject:     tool.NoSubject,
		},
		Check: func(in *findSymbolInput) error {
			name := strings.TrimSpace(in.Name)
			if name == "" || strings.ContainsAny(name, "\n\r") {
				return tool.Failf("name must be one identifier, e.g. ParseConfig or Server.Start.")
			}
			_, err := search.ParseInclude(in.Include)
			return err
		},
		Plan: func(in *findSymbolInput) tool.Plan {
			title := strings.TrimSpace(in.Name)
			if in.Include != "" {
				title += " in " + in.Include
			}
			return tool.Plan{Title: fileop.Title(title)}
		},
		Run: func(ctx context.Context, _ tool.Runtime, in *findSymbolInput) (tool.Result, error) {
			return tool.TextOf(findSymbol(ctx, env, langs, in))
		},
	})
}

func findSymbol(ctx context.Context, env *workspace.Env, langs *rules, in *findSymbolInput) (string, error) {
	name := strings.TrimSpace(in.Name)
	include, err := search.ParseInclude(in.Include)
	if err != nil {
		return "", err
	}
	var hits []string
	more := false
	err = workspace.Walk(ctx, env, ".", workspace.WalkOptions{}, func(rel string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || !include.Match(rel) {
			return nil
		}
		lang := langs.languageFor(rel)
		if lang == nil {
			return nil
		}
		for _, h := range symbolHits(env, lang, rel, name) {
			if len(hits) == symbolMaxHits {
				more = true
				return fs.SkipAll
			}
			hits = append(hits, h)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	if len(hits) == 0 {
		where := ""
		if in.Include != "" {
			where = " in " + in.Include
		}
		return fmt.Sprintf("No declaration of %s found%s. Try grep for uses, or a shorter name.", name, where), nil
	}
	out := strings.Join(hits, "\n")
	if more {
		out += fmt.Sprintf("\n[first %d shown; narrow with include]", symbolMaxHits)
	}
	return tool.Cap(out), nil
}

// symbolHits lists the declarations of name in one file as
// `path:line: text`.
func symbolHits(env *workspace.Env, lang *language, rel, name string) []string {
	abs := filepath.Join(env.Root, filepath.FromSlash(rel))
	fi, err := os.Stat(abs)
	if err != nil || fi.Size() > maxTextFile {
		return nil
	}
	data, err := os.ReadFile(abs)
	if err != nil || workspace.IsBinary(data) {
		return nil
	}
	_, member := splitQualified(lang, name)
	if !bytes.Contains(data, []byte(member)) {
		return nil
	}
	lines := splitLines(string(data))
	var out []string
	for _, d := range definitions(lang, lines, name) {
		out = append(out, fmt.Sprintf("%s:%d: %s", rel, d.line+1, prose.Cut(strings.TrimSpace(lines[d.line]), symbolLineCut)))
	}
	return out
}

// ---- outline ----

type outlineInput struct {
	Path string `json:"path"`
}

func outlineTool(env *workspace.Env, langs *rules) tool.Tool {
	return tool.New(tool.Def[outlineInput]{
		Info: tool.Info{
			Name:        "outline",
			ByPattern:   true,
			Description: "List a source file's declarations as `line: text`.",
			Guidance:    "outline: a file's declarations before reading it whole.",
			Set:         tool.SetExtra,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.PathSubject,
		},
		Check: func(in *outlineInput) error { return requirePath(in.Path) },
		Plan: func(in *outlineInput) tool.Plan {
			return tool.Plan{Subjects: []string{fileop.OrRoot(in.Path)}, Title: fileop.Title(in.Path)}
		},
		Run: func(_ context.Context, _ tool.Runtime, in *outlineInput) (tool.Result, error) {
			return tool.TextOf(outline(env, langs, in))
		},
	})
}

func outline(env *workspace.Env, langs *rules, in *outlineInput) (string, error) {
	f, lang, lines, err := readSource(env, langs, in.Path)
	if err != nil {
		return "", err
	}
	decls := scanDecls(lang, lines, "")
	if len(decls) == 0 {
		return fmt.Sprintf("No declarations found in %s.", f.rel), nil
	}
	var b strings.Builder
	for _, d := range decls {
		fmt.Fprintf(&b, "%d: %s\n", d.line+1, prose.Cut(strings.TrimRight(lines[d.line], " \t"), outlineLineCut))
	}
	return tool.Cap(strings.TrimSuffix(b.String(), "\n")), nil
}

// requirePath refuses an empty path, which the schema lets through.
func requirePath(p string) error {
	if p == "" {
		return tool.Failf("path is required.")
	}
	return nil
}

// readSource reads a text file that has declaration rules.
func readSource(env *workspace.Env, langs *rules, p string) (textFile, *language, []string, error) {
	f, err := readTextFile(env, p)
	if err != nil {
		return f, nil, nil, err
	}
	lang := langs.languageFor(f.rel)
	if lang == nil {
		return f, nil, nil, tool.Failf("%s: no declaration rules for %q files; supported: %s. Use read_file or grep.", f.rel, path.Ext(f.rel), langs.supportedExts())
	}
	return f, lang, splitLines(string(f.data)), nil
}

// ---- read_symbol ----

type readSymbolInput struct {
	Path string `json:"path"`
	Name string `json:"name"`
}

func readSymbolTool(env *workspace.Env, langs *rules) tool.Tool {
	return tool.New(tool.Def[readSymbolInput]{
		Info: tool.Info{
			Name:        "read_symbol",
			ByPattern:   true,
			Description: "Read one definition (with its doc comment) from a file by name; name may be Owner.member.",
			Guidance:    "read_symbol: read just one function or type from a file.",
			Set:         tool.SetExtra,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.PathSubject,
		},
		Check: func(in *readSymbolInput) error {
			if strings.TrimSpace(in.Name) == "" {
				return tool.Failf("name is required.")
			}
			return requirePath(in.Path)
		},
		Plan: func(in *readSymbolInput) tool.Plan {
			return tool.Plan{
				Subjects: []string{fileop.OrRoot(in.Path)},
				Title:    fileop.Title(strings.TrimSpace(in.Name) + " in " + in.Path),
			}
		},
		Run: func(_ context.Context, _ tool.Runtime, in *readSymbolInput) (tool.Result, error) {
			return tool.TextOf(readSymbol(env, langs, in))
		},
	})
}

func readSymbol(env *workspace.Env, langs *rules, in *readSymbolInput) (string, error) {
	name := strings.TrimSpace(in.Name)
	f, lang, lines, err := readSource(env, langs, in.Path)
	if err != nil {
		return "", err
	}
	defs := definitions(lang, lines, name)
	if len(defs) == 0 {
		return "", notFound(lang, lines, f.rel, name)
	}
	// Prefer a definition with a body over a prototype or forward
	// declaration of the same name.
	pick := 0
	for i, d := range defs {
		if _, last := extent(lang, lines, d.line); last > d.line || !strings.HasSuffix(strings.TrimSpace(lines[d.line]), ";") {
			pick = i
			break
		}
	}
	first, last := extent(lang, lines, defs[pick].line)
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d-%d\n", f.rel, first+1, last+1)
	for i := first; i <= last; i++ {
		if i-first == readSymbolLines {
			fmt.Fprintf(&b, "[%d more lines; read_file %s with offset %d]\n", last-i+1, f.rel, i+1)
			break
		}
		fmt.Fprintf(&b, "%d: %s\n", i+1, lines[i])
	}
	var others []string
	for i, d := range defs {
		if i != pick {
			others = append(others, fmt.Sprint(d.line+1))
		}
	}
	if len(others) > 0 {
		fmt.Fprintf(&b, "[%s is also declared at line %s]\n", name, strings.Join(others, ", "))
	}
	return tool.Cap(strings.TrimSuffix(b.String(), "\n")), nil
}

// notFound names what the file does declare, so the next call can be
// right.
func notFound(lang *language, lines []string, rel, name string) error {
	var names []string
	for _, d := range scanDecls(lang, lines, "") {
		if d.name != "" && !slices.Contains(names, d.name) {
			names = append(names, d.name)
		}
	}
	if len(names) == 0 {
		return tool.Failf("No definition of %s in %s; it has no declarations the rules recognise. Use read_file.", name, rel)
	}
	msg := fmt.Sprintf("No definition of %s in %s. Declared there: %s", name, rel, strings.Join(names[:min(len(names), notFoundNames)], ", "))
	if len(names) > notFoundNames {
		msg += fmt.Sprintf(" (and %d more; outline lists them)", len(names)-notFoundNames)
	}
	return tool.Failf("%s", msg+".")
}
