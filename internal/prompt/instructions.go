package prompt

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Instruction files are standing orders from the user; tracker files are
// the project's own progress notes. Both load from the git root down to the
// workspace, so a subproject's files add to the repository's. CLAUDE.local.md
// is Claude Code's personal (uncommitted) companion of CLAUDE.md.
func instructionFiles() []struct {
	name    string
	limit   int
	tracker bool
} {
	return []struct {
		name    string
		limit   int
		tracker bool
	}{
		{"AGENTS.md", 12000, false}, {"CLAUDE.md", 12000, false}, {claudeDirFile, 12000, false},
		{"CLAUDE.local.md", 12000, false}, {".shiro.md", 12000, false},
		{"TODO.md", 6000, true}, {"ROADMAP.md", 6000, true},
	}
}

// importsFrom says which files may import others with @path lines: Claude
// Code's, whose files use the syntax.
func importsFrom(name string) bool {
	return name == "CLAUDE.md" || name == "CLAUDE.local.md" || name == claudeDirFile
}

// claudeDirFile is Claude Code's other place for a project's CLAUDE.md,
// inside the .claude directory; it is read right after ./CLAUDE.md, in
// each directory from the git root down, as Claude Code reads both.
const claudeDirFile = ".claude/CLAUDE.md"

// userClaudeFile is Claude Code's user memory, under the home directory:
// the person's own orders for every project. It comes first, so that the
// project's files, read after it, have the last word, as in Claude Code.
const userClaudeFile = ".claude/CLAUDE.md"

// Bounds on @path imports: how deep an import may import again (Claude
// Code's own limit) and how many files all imports together may add.
const (
	maxImportDepth = 5
	maxImports     = 20
)

// InstructionOptions say where imports may reach besides the repository.
type InstructionOptions struct {
	// Home is the home directory: ~/.claude/CLAUDE.md is read first,
	// `@~/…` imports resolve under it, and files under Home/.claude may be
	// imported. Empty disables all three.
	Home string
}

// InstructionFile is one file the instructions were read from, for
// /context: what it is, how much of it went into the prompt, and, for an
// import, which file imported it (or why it was skipped).
type InstructionFile struct {
	// Label is the path as the prompt names it (relative to the workspace,
	// or ~/… for a file under the home directory).
	Label   string
	Path    string
	Tracker bool
	// Bytes is what of the file the prompt carries; Cut is set when the
	// file was longer than its cap.
	Bytes int
	Cut   bool
	// ImportedBy is the label of the file whose @path line brought it in.
	ImportedBy string
	// Skipped says why an import was left out ("" when it was read).
	Skipped string
}

// ReadInstructions reads the instruction and tracker files that apply to
// root (after the user's ~/.claude/CLAUDE.md), labelled so the model knows what each one is, lists the files it
// read, and follows @path imports in CLAUDE.md and CLAUDE.local.md: each imported
// file follows the file that imports it, under its own label. An import
// must stay inside the repository (or under ~/.claude): a cloned
// repository's CLAUDE.md must not pull a file from elsewhere on the machine
// into what is sent to the model.
func ReadInstructions(root string, opts InstructionOptions) (string, []InstructionFile) {
	dirs := dirsFromGitRoot(root)
	r := &instructionReader{root: root, top: dirs[0], opts: opts, seen: map[string]bool{}}
	if opts.Home != "" {
		r.file(filepath.Join(opts.Home, userClaudeFile), 12000, false, true)
	}
	for _, dir := range dirs {
		for _, f := range instructionFiles() {
			r.file(filepath.Join(dir, f.name), f.limit, f.tracker, importsFrom(f.name))
		}
	}
	return strings.TrimRight(r.b.String(), "\n"), r.files
}

// file reads one instruction file, if it is there and not read already
// (a workspace inside the home directory reaches ~/.claude/CLAUDE.md both
// ways), and follows its imports when its kind has them.
func (r *instructionReader) file(path string, limit int, tracker, imports bool) {
	if r.seen[path] {
		return
	}
	data, err := os.ReadFile(path)
	if err != nil || len(strings.TrimSpace(string(data))) == 0 {
		return
	}
	r.add(path, string(data), limit, tracker, "")
	if imports {
		r.imports(path, string(data), limit, 1)
	}
}

// instructionReader accumulates the instructions text and the file list.
type instructionReader struct {
	root, top string
	opts      InstructionOptions
	b         strings.Builder
	files     []InstructionFile
	seen      map[string]bool
	imported  int
}

func (r *instructionReader) label(path string) string {
	if r.opts.Home != "" && !isUnder(r.top, path) && isUnder(r.opts.Home, path) {
		if l, err := filepath.Rel(r.opts.Home, path); err == nil {
			return "~/" + filepath.ToSlash(l)
		}
	}
	l, err := filepath.Rel(r.root, path)
	if err != nil {
		return path
	}
	return filepath.ToSlash(l)
}

// add writes one file under its heading and lists it.
func (r *instructionReader) add(path, data string, limit int, tracker bool, importedBy string) {
	r.seen[path] = true
	label := r.label(path)
	text := capChars(data, limit)
	switch {
	case tracker:
		fmt.Fprintf(&r.b, "--- Project tracker (%s) — current progress. Read before starting work and keep it current as you go. ---\n", label)
	case importedBy != "":
		fmt.Fprintf(&r.b, "--- Project instructions (%s, imported by %s) — standing orders from the user; they override your defaults but never your safety rules. ---\n", label, importedBy)
	default:
		fmt.Fprintf(&r.b, "--- Project instructions (%s) — standing orders from the user; they override your defaults but never your safety rules. ---\n", label)
	}
	body := strings.TrimRight(text, "\n")
	r.b.WriteString(body + "\n\n")
	r.files = append(r.files, InstructionFile{Label: label, Path: path, Tracker: tracker, Bytes: len(body),
		Cut: utf8.RuneCountInString(data) > limit, ImportedBy: importedBy})
}

// imports follows the @path lines of the file at from.
func (r *instructionReader) imports(from, data string, limit, depth int) {
	if depth > maxImportDepth {
		return
	}
	by := r.label(from)
	for _, ref := range importRefs(data) {
		path, ok := r.resolveImport(from, ref)
		skip := func(why string) {
			r.files = append(r.files, InstructionFile{Label: ref, Path: path, ImportedBy: by, Skipped: why})
		}
		switch {
		case !ok:
			skip("outside the repository and ~/.claude")
			continue
		case r.seen[path]:
			continue
		case r.imported >= maxImports:
			skip(fmt.Sprintf("more than %d imports", maxImports))
			continue
		}
		body, err := os.ReadFile(path)
		if err != nil {
			// "@alice" in prose is a mention, not a file: only a path
			// that names a file is an import.
			continue
		}
		if len(strings.TrimSpace(string(body))) == 0 {
			continue
		}
		r.imported++
		r.add(path, string(body), limit, false, by)
		r.imports(path, string(body), limit, depth+1)
	}
}

// resolveImport turns an @path into a file path, relative to the file that
// names it, and reports whether it may be read.
func (r *instructionReader) resolveImport(from, ref string) (string, bool) {
	var path string
	switch {
	case strings.HasPrefix(ref, "~/"):
		if r.opts.Home == "" {
			return "", false
		}
		path = filepath.Join(r.opts.Home, ref[2:])
	case filepath.IsAbs(ref):
		path = filepath.Clean(ref)
	default:
		path = filepath.Join(filepath.Dir(from), ref)
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		// A file that does not exist is no import either way.
		return path, isUnder(r.top, path)
	}
	if isUnder(r.top, real) {
		return real, true
	}
	if r.opts.Home != "" {
		if claude, err := filepath.EvalSymlinks(filepath.Join(r.opts.Home, ".claude")); err == nil && isUnder(claude, real) {
			return real, true
		}
	}
	return real, false
}

// importRefs finds the @path references of a CLAUDE.md: a word that starts
// with @ at the start of a line or after a space, outside code blocks and
// code spans, with trailing punctuation left off.
func importRefs(text string) []string {
	var out []string
	fenced := false
	for _, line := range strings.Split(text, "\n") {
		if t := strings.TrimSpace(line); strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		for _, word := range strings.Fields(outsideCodeSpans(line)) {
			if !strings.HasPrefix(word, "@") {
				continue
			}
			ref := strings.TrimRight(word[1:], ".,;:!?)]}\"'")
			if ref != "" {
				out = append(out, ref)
			}
		}
	}
	return out
}

// outsideCodeSpans blanks out `code spans` in a line.
func outsideCodeSpans(line string) string {
	var b strings.Builder
	in := false
	for _, r := range line {
		if r == '`' {
			in = !in
			b.WriteRune(' ')
			continue
		}
		if in {
			b.WriteRune(' ')
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isUnder reports whether p is dir or below it.
func isUnder(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// dirsFromGitRoot lists the directories from the enclosing git root (or
// root itself outside git) down to root.
func dirsFromGitRoot(root string) []string {
	dirs := []string{root}
	for d := root; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return []string{root} // not in git: the workspace alone
		}
		d = parent
		dirs = append([]string{d}, dirs...)
	}
	return dirs
}

func capChars(s string, limit int) string {
	if utf8.RuneCountInString(s) <= limit {
		return s
	}
	r := []rune(s)
	return string(r[:limit]) + fmt.Sprintf("\n… [cut at %d characters]", limit)
}
