package prompt

import (
	"path"
	"slices"
	"strings"
)

// The project's languages, told to the model with the overview (the
// original's "Project language" hints): which languages the workspace is
// written in, most first, with the checks each one's own tools make. They
// come from the overview's walk, at no extra cost, and sit in the cached
// prefix, so they say no counts: a new file must not change the prompt.

// maxLanguages bounds how many languages are named.
const maxLanguages = 3

// languageOf names the programming language of a file by its extension;
// "" for what is not code (docs, data, config).
func languageOf(rel string) string {
	switch strings.ToLower(path.Ext(rel)) {
	case ".go":
		return "Go"
	case ".ts", ".tsx", ".mts", ".cts":
		return "TypeScript"
	case ".js", ".jsx", ".mjs", ".cjs":
		return "JavaScript"
	case ".py", ".pyi":
		return "Python"
	case ".rs":
		return "Rust"
	case ".java":
		return "Java"
	case ".kt", ".kts":
		return "Kotlin"
	case ".rb":
		return "Ruby"
	case ".php":
		return "PHP"
	case ".c", ".h":
		return "C"
	case ".cc", ".cpp", ".cxx", ".hpp", ".hh":
		return "C++"
	case ".cs":
		return "C#"
	case ".swift":
		return "Swift"
	case ".sh", ".bash":
		return "Shell"
	case ".ex", ".exs":
		return "Elixir"
	case ".scala":
		return "Scala"
	case ".dart":
		return "Dart"
	case ".zig":
		return "Zig"
	case ".lua":
		return "Lua"
	case ".vue":
		return "Vue"
	case ".svelte":
		return "Svelte"
	}
	return ""
}

// languageHint is what a language's own tools check, for the few whose
// tools are the same in every project.
func languageHint(lang string) string {
	switch lang {
	case "Go":
		return "gofmt, go vet ./..., go test ./..."
	case "Rust":
		return "cargo fmt, cargo clippy, cargo test"
	case "TypeScript":
		return "tsc and the package.json scripts"
	case "JavaScript":
		return "the package.json scripts"
	case "Python":
		return "the project's pytest and linters (pyproject.toml)"
	}
	return ""
}

// languageTally counts code files by language.
type languageTally map[string]int

func (t languageTally) add(rel string) {
	if lang := languageOf(rel); lang != "" {
		t[lang]++
	}
}

// line is the languages, most files first, that hold a share worth
// naming (at least two files, and a twentieth of the most common one's);
// "" when there is no code.
func (t languageTally) line() string {
	langs := make([]string, 0, len(t))
	top := 0
	for lang, n := range t {
		langs = append(langs, lang)
		top = max(top, n)
	}
	slices.SortFunc(langs, func(a, b string) int {
		if t[a] != t[b] {
			return t[b] - t[a]
		}
		return strings.Compare(a, b)
	})
	var named []string
	for _, lang := range langs {
		if len(named) == maxLanguages || t[lang] < 2 || t[lang]*20 < top {
			break
		}
		if hint := languageHint(lang); hint != "" {
			lang += " (" + hint + ")"
		}
		named = append(named, lang)
	}
	if len(named) == 0 {
		return ""
	}
	return "Project language: " + strings.Join(named, "; ") + ". Follow each one's conventions as the code around you does."
}
