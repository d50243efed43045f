package navtools

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/tools"
)

// Limits of the symbol tools.
const (
	symbolMaxHits   = 40
	symbolLineCut   = 200 // characters of a find_symbol hit
	outlineLineCut  = 120
	notFoundNames   = 20 // names listed when read_symbol finds nothing
	readSymbolLines = 1000
)

// parseInclude reads an include glob as grep's does (see tools.NamePattern);
// nil stands for every file.
func parseInclude(p string) (*tools.NamePattern, error) {
	p = strings.TrimPrefix(p, "./")
	if p == "" || p == "*" || p == "**" || p == "**/*" {
		return nil, nil
	}
	if !doublestar.ValidatePattern(p) {
		return nil, tools.Failf("Invalid glob pattern: %s", p)
	}
	return tools.GlobPattern(p), nil
}

// ---- find_symbol ----

type findSymbolTool struct{ env *tools.Env }

func (findSymbolTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "find_symbol",
		Description: "Find where a function, type, class or constant is declared. Name may be Owner.member.",
		Schema: json.RawMessage(`{"type":"object","properties":{` +
			`"name":{"type":"string"},` +
			`"include":{"type":"string","description":"glob, e.g. *.go"}},` +
			`"required":["name"],"additionalProperties":false}`),
	}
}

func (findSymbolTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetNav, Guidance: "find_symbol: jump to a declaration by name (faster than grep)."}
}

func (t findSymbolTool) Run(ctx context.Context, call tools.Call) (string, error) {
	var in struct {
		Name    string `json:"name"`
		Include string `json:"include"`
	}
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	name := strings.TrimSpace(in.Name)
	if name == "" || strings.ContainsAny(name, "\n\r") {
		return "", tools.Failf("name must be one identifier, e.g. ParseConfig or Server.Start.")
	}
	include, err := parseInclude(in.Include)
	if err != nil {
		return "", err
	}
	var hits []string
	more := false
	err = tools.Walk(ctx, env, ".", tools.WalkOptions{}, func(rel string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || !include.Match(rel) {
			return nil
		}
		lang := languageFor(rel)
		if lang == nil {
			return nil
		}
		found := symbolHits(env, lang, rel, name)
		for _, h := range found {
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
	return tools.Cap(out), nil
}

// symbolHits lists the declarations of name in one file as
// `path:line: text`.
func symbolHits(env *tools.Env, lang *language, rel, name string) []string {
	abs := filepath.Join(env.Root, filepath.FromSlash(rel))
	fi, err := os.Stat(abs)
	if err != nil || fi.Size() > maxTextFile {
		return nil
	}
	data, err := os.ReadFile(abs)
	if err != nil || tools.IsBinary(data) {
		return nil
	}
	_, member := splitQualified(lang, name)
	if !bytes.Contains(data, []byte(member)) {
		return nil
	}
	lines := splitLines(string(data))
	var out []string
	for _, d := range definitions(lang, lines, name) {
		out = append(out, fmt.Sprintf("%s:%d: %s", rel, d.line+1, cut(strings.TrimSpace(lines[d.line]), symbolLineCut)))
	}
	return out
}

// ---- outline ----

type outlineTool struct{ env *tools.Env }

func (outlineTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "outline",
		Description: "List a source file's declarations as `line: text`.",
		Schema:      json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`),
	}
}

func (outlineTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetExtra, Guidance: "outline: a file's declarations before reading it whole.", Subjects: tools.PathField}
}

func (t outlineTool) Run(_ context.Context, call tools.Call) (string, error) {
	var in struct {
		Path string `json:"path"`
	}
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	f, lang, lines, err := readSource(env, in.Path)
	if err != nil {
		return "", err
	}
	decls := scanDecls(lang, lines, "")
	if len(decls) == 0 {
		return fmt.Sprintf("No declarations found in %s.", f.rel), nil
	}
	var b strings.Builder
	for _, d := range decls {
		fmt.Fprintf(&b, "%d: %s\n", d.line+1, cut(strings.TrimRight(lines[d.line], " \t"), outlineLineCut))
	}
	return tools.Cap(strings.TrimSuffix(b.String(), "\n")), nil
}

// readSource reads a text file that has declaration rules.
func readSource(env *tools.Env, p string) (textFile, *language, []string, error) {
	f, err := readTextFile(env, p)
	if err != nil {
		return f, nil, nil, err
	}
	lang := languageFor(f.rel)
	if lang == nil {
		return f, nil, nil, tools.Failf("%s: no declaration rules for %q files; supported: %s. Use read_file or grep.", f.rel, path.Ext(f.rel), supportedExts())
	}
	return f, lang, splitLines(string(f.data)), nil
}

// ---- read_symbol ----

type readSymbolTool struct{ env *tools.Env }

func (readSymbolTool) Spec() llm.ToolSpec {
	return llm.ToolSpec{
		Name:        "read_symbol",
		Description: "Read one definition (with its doc comment) from a file by name; name may be Owner.member.",
		Schema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"name":{"type":"string"}},` +
			`"required":["path","name"],"additionalProperties":false}`),
	}
}

func (readSymbolTool) Meta() tools.Meta {
	return tools.Meta{Set: tools.SetExtra, Guidance: "read_symbol: read just one function or type from a file.", Subjects: tools.PathField}
}

func (t readSymbolTool) Run(_ context.Context, call tools.Call) (string, error) {
	var in struct {
		Path string `json:"path"`
		Name string `json:"name"`
	}
	env, err := tools.Begin(call, t.env, &in)
	if err != nil {
		return "", err
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		return "", tools.Failf("name is required.")
	}
	f, lang, lines, err := readSource(env, in.Path)
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
	return tools.Cap(strings.TrimSuffix(b.String(), "\n")), nil
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
		return tools.Failf("No definition of %s in %s; it has no declarations the rules recognise. Use read_file.", name, rel)
	}
	msg := fmt.Sprintf("No definition of %s in %s. Declared there: %s", name, rel, strings.Join(names[:min(len(names), notFoundNames)], ", "))
	if len(names) > notFoundNames {
		msg += fmt.Sprintf(" (and %d more; outline lists them)", len(names)-notFoundNames)
	}
	return tools.Failf("%s", msg+".")
}
