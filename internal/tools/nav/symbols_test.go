package nav

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func TestFindSymbol(t *testing.T) {
	t.Parallel()
	env := fixtureEnv(t)
	cases := []struct{ name, want string }{
		{"Server", "sample.go:24: type Server struct {"},
		{"Start", "sample.go:29: func (s *Server) Start(opts ...string) error {"},
		{"Server.Start", "sample.go:29: func (s *Server) Start(opts ...string) error {"},
		{"Second", "sample.go:11: Second"},
		{"Pair", "sample.go:16: Pair struct {"},
		{"Map", "sample.go:40: func Map[T any](xs []T,"},
		{"Greeter", "sample.ts:4: export class Greeter {"},
		{"greet", "sample.ts:11: greet(loud: boolean): string {"},
		{"Greeter.handle", "sample.ts:18: handle = async (e: Event) => {"},
		{"helper", "sample.ts:34: export const helper = (a: number) =>"},
		{"Id", "sample.ts:27: export type Id = string | number;"},
		{"Loader.load", "sample.py:19: def load("},
		{"fetch", "sample.py:29: async def fetch(url):"},
		{"MAX_SIZE", "sample.py:5: MAX_SIZE = 100"},
		{"Point", "sample.rs:5: pub struct Point {\nsample.rs:10: impl fmt::Display for Point {"},
		{"parse", "sample.rs:16: pub(crate) fn parse<'a>(s: &'a str) -> Option<&'a str> {"},
		{"square", "sample.rs:25: macro_rules! square {"},
		{"copy", "Sample.java:16: public static <T> List<T> copy(List<T> in)"},
		{"Shelf", "Sample.java:4: public class Shelf {\nSample.java:7: public Shelf() {"},
		{"shout", "sample.kt:5: fun String.shout(): String {"},
		{"DEFAULT_USER", "sample.kt:16: val DEFAULT_USER = User(\"root\", 0)"},
		{"count", "sample.c:12: static int count(const node_t *head);\nsample.c:15: static int count(const node_t *head)"},
		{"node_t", "sample.c:8: } node_t;"},
		{"compare_fn", "sample.c:10: typedef int (*compare_fn)(const void *, const void *);"},
		{"MAX_LEN", "sample.c:3: #define MAX_LEN 64"},
		{"Circle::area", "sample.cpp:12: double area() const override;\nsample.cpp:17: double Circle::area() const {"},
		{"Radius", "sample.cpp:26: using Radius = double;"},
		{"empty?", "sample.rb:17: def empty? = @items.empty?"},
		{"TAX", "sample.rb:4: TAX = 0.2"},
		{"Usage", "sample.md:18: ## Usage"},
	}
	for _, c := range cases {
		if got := family.Ok(t, env, "find_symbol", map[string]any{"name": c.name}); got != c.want {
			t.Errorf("find_symbol %s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
	// Uses, calls, comments and strings are not declarations.
	for _, name := range []string{"Commented", "println", "log", "it", "describe", "super", "strings"} {
		if got := family.Ok(t, env, "find_symbol", map[string]any{"name": name}); !strings.HasPrefix(got, "No declaration of "+name) {
			t.Errorf("find_symbol %s: %q", name, got)
		}
	}
	got := family.Ok(t, env, "find_symbol", map[string]any{"name": "area", "include": "*.rs"})
	if got != "sample.rs:22: fn area(&self) -> f64;" {
		t.Errorf("include *.rs: %q", got)
	}
	if got := family.Ok(t, env, "find_symbol", map[string]any{"name": "area", "include": "*.go"}); got != "No declaration of area found in *.go. Try grep for uses, or a shorter name." {
		t.Errorf("include *.go: %q", got)
	}
	if msg := family.Refuse(t, env, "find_symbol", map[string]any{"name": " "}).Err.Error(); !strings.HasPrefix(msg, "name must be one identifier") {
		t.Errorf("empty name: %q", msg)
	}
	if msg := family.Refuse(t, env, "find_symbol", map[string]any{"name": "a\nb"}).Err.Error(); !strings.HasPrefix(msg, "name must be one identifier") {
		t.Errorf("two lines: %q", msg)
	}
	if msg := family.Refuse(t, env, "find_symbol", map[string]any{"name": "x", "include": "[a-"}).Err.Error(); msg != "Invalid glob pattern: [a-" {
		t.Errorf("bad include: %q", msg)
	}
}

func TestFindSymbolSkipsIgnoredAndBinary(t *testing.T) {
	t.Parallel()
	env := newEnv(t, map[string]string{
		".gitignore":          "gen/\n",
		"gen/a.go":            "package gen\nfunc Target() {}\n",
		"node_modules/m/x.js": "function Target() {}\n",
		"bin.go":              "package x\x00\nfunc Target() {}\n",
		"ok.go":               "package ok\nfunc Target() {}\n",
		"notes.txt":           "func Target() {}\n",
	})
	if got := family.Ok(t, env, "find_symbol", map[string]any{"name": "Target"}); got != "ok.go:2: func Target() {}" {
		t.Errorf("got %q", got)
	}
}

func TestFindSymbolCapsHits(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 45 {
		files[fmt.Sprintf("f%02d.py", i)] = "def target():\n    pass\n"
	}
	env := newEnv(t, files)
	got := family.Ok(t, env, "find_symbol", map[string]any{"name": "target"})
	lines := strings.Split(got, "\n")
	if len(lines) != 41 || lines[39] != "f39.py:1: def target():" || lines[40] != "[first 40 shown; narrow with include]" {
		t.Errorf("%d lines, tail %q", len(lines), lines[len(lines)-2:])
	}
}

func TestOutline(t *testing.T) {
	t.Parallel()
	env := fixtureEnv(t)
	want := "6: const Limit = 10\n8: const (\n10: \tFirst = iota\n11: \tSecond\n14: type (\n16: \tPair struct {\n" +
		"20: \tName string\n24: type Server struct {\n29: func (s *Server) Start(opts ...string) error {\n" +
		"40: func Map[T any](xs []T,\n49: var registry = map[string]int{"
	if got := family.Ok(t, env, "outline", map[string]any{"path": "sample.go"}); got != want {
		t.Errorf("outline sample.go:\n got %q\nwant %q", got, want)
	}
	if got := family.Ok(t, env, "outline", map[string]any{"path": "sample.md"}); got != "1: # Title\n5: ## Install\n14: ### Details\n18: ## Usage" {
		t.Errorf("outline sample.md: %q", got)
	}
	if got := family.Ok(t, env, "outline", map[string]any{"path": "sample.py"}); got != "5: MAX_SIZE = 100\n10: class Loader:\n"+
		"16:     def __init__(self, path):\n19:     def load(\n29: async def fetch(url):\n32: def one_liner(): return 1" {
		t.Errorf("outline sample.py: %q", got)
	}
	long := "export function f(" + strings.Repeat("a, ", 60) + "b) {}\n"
	wstest.Write(t, env.Root, map[string]string{"long.ts": long, "empty.go": "package x\n", "x.txt": "hi\n", "bin.go": "\x00"})
	got := family.Ok(t, env, "outline", map[string]any{"path": "long.ts"})
	if n := len([]rune(got)); n != len("1: ")+outlineLineCut+1 || !strings.HasSuffix(got, "…") {
		t.Errorf("long line: %d chars %q", n, got)
	}
	if got := family.Ok(t, env, "outline", map[string]any{"path": "empty.go"}); got != "No declarations found in empty.go." {
		t.Errorf("empty: %q", got)
	}
	for path, want := range map[string]string{
		"x.txt":      `x.txt: no declaration rules for ".txt" files; supported: .go`,
		"missing.go": "No such file: missing.go",
		"bin.go":     "bin.go is a binary file, not text.",
		".":          ". is a directory, not a file.",
		"../x.go":    "path escapes workspace: ../x.go",
	} {
		if msg := family.FailRun(t, env, "outline", map[string]any{"path": path}); !strings.HasPrefix(msg, want) {
			t.Errorf("outline %q: %q", path, msg)
		}
	}
	if msg := family.Refuse(t, env, "outline", map[string]any{"path": ""}).Err.Error(); msg != "path is required." {
		t.Errorf("outline \"\": %q", msg)
	}
}

func TestReadSymbol(t *testing.T) {
	t.Parallel()
	env := fixtureEnv(t)
	cases := []struct {
		path, name string
		// header is the first line of the result; last, the last.
		header, last string
	}{
		{"sample.go", "Server.Start", "sample.go:28-38", "38: }"},
		{"sample.go", "Map", "sample.go:40-47", "47: }"},
		{"sample.go", "Pair", "sample.go:15-19", "19: \t}"},
		{"sample.go", "Limit", "sample.go:5-6", "6: const Limit = 10"},
		{"sample.go", "registry", "sample.go:49-51", "51: }"},
		{"sample.ts", "greet", "sample.ts:11-16", "16:   }"},
		{"sample.ts", "helper", "sample.ts:34-35", "35:   a + 1;"},
		{"sample.ts", "Options", "sample.ts:23-25", "25: }"},
		{"sample.py", "Loader", "sample.py:8-26", "26:         return True"},
		{"sample.py", "Loader.load", "sample.py:19-26", "26:         return True"},
		{"sample.py", "one_liner", "sample.py:32-32", "32: def one_liner(): return 1"},
		{"sample.rs", "parse", "sample.rs:16-19", "19: }"},
		{"sample.rs", "fmt", "sample.rs:11-13", "13:     }"},
		{"sample.rs", "Point", "sample.rs:3-8", "[Point is also declared at line 10]"},
		{"Sample.java", "copy", "Sample.java:16-22", "22:     }"},
		{"Sample.java", "Shelf.toString", "Sample.java:11-14", "14:     }"},
		{"sample.kt", "load", "sample.kt:9-10", "10:     User(\"x\", id)"},
		{"sample.c", "count", "sample.c:14-23", "[count is also declared at line 12]"},
		{"sample.c", "node_t", "sample.c:5-8", "8: } node_t;"},
		{"sample.cpp", "Circle::area", "sample.cpp:17-19", "[Circle::area is also declared at line 12]"},
		{"sample.rb", "add", "sample.rb:10-15", "15:     end"},
		{"sample.rb", "Cart", "sample.rb:2-20", "20:   end"},
		{"sample.rb", "build", "sample.rb:19-19", "19:     def self.build; new; end"},
		{"sample.md", "Install", "sample.md:5-16", "16: More."},
	}
	for _, c := range cases {
		got := family.Ok(t, env, "read_symbol", map[string]any{"path": c.path, "name": c.name})
		lines := strings.Split(got, "\n")
		if lines[0] != c.header || lines[len(lines)-1] != c.last {
			t.Errorf("read_symbol %s %s:\n%s", c.path, c.name, got)
		}
	}
	msg := family.FailRun(t, env, "read_symbol", map[string]any{"path": "sample.go", "name": "Nope"})
	if msg != "No definition of Nope in sample.go. Declared there: Limit, First, Second, Pair, Name, Server, Start, Map, registry." {
		t.Errorf("not found: %q", msg)
	}
	msg = family.FailRun(t, env, "read_symbol", map[string]any{"path": "sample.go", "name": "Other.Start"})
	if !strings.HasPrefix(msg, "No definition of Other.Start in sample.go.") {
		t.Errorf("wrong owner: %q", msg)
	}
	if msg := family.Refuse(t, env, "read_symbol", map[string]any{"path": "sample.go", "name": " "}).Err.Error(); msg != "name is required." {
		t.Errorf("blank name: %q", msg)
	}
	if msg := family.Refuse(t, env, "read_symbol", map[string]any{"path": "sample.go"}).Err.Error(); msg != `required: missing properties: ["name"]` {
		t.Errorf("no name: %q", msg)
	}
	if msg := family.Refuse(t, env, "read_symbol", map[string]any{"path": "", "name": "Map"}).Err.Error(); msg != "path is required." {
		t.Errorf("empty path: %q", msg)
	}
}

func TestReadSymbolLongBody(t *testing.T) {
	t.Parallel()
	body := "func Big() {\n" + strings.Repeat("\tx++\n", 1500) + "}\n"
	env := newEnv(t, map[string]string{"big.go": body})
	got := family.Ok(t, env, "read_symbol", map[string]any{"path": "big.go", "name": "Big"})
	if !strings.HasPrefix(got, "big.go:1-1502\n") || !strings.HasSuffix(got, "[502 more lines; read_file big.go with offset 1001]") {
		t.Errorf("head %q tail %q", got[:20], got[len(got)-60:])
	}
}

// BenchmarkFindSymbol searches 2,000 Go files of 200 lines each, the name
// declared in one of them and mentioned in every tenth.
func BenchmarkFindSymbol(b *testing.B) {
	files := map[string]string{}
	for i := range 2000 {
		var src strings.Builder
		fmt.Fprintf(&src, "package p%d\n\n", i/100)
		for j := range 40 {
			fmt.Fprintf(&src, "// F%d_%d does a thing.\nfunc F%d_%d(x int) int {\n\ty := x * 2\n\treturn y\n}\n", i, j, i, j)
		}
		if i%10 == 0 {
			src.WriteString("var _ = TargetName\n")
		}
		if i == 1234 {
			src.WriteString("func TargetName() {}\n")
		}
		files[fmt.Sprintf("pkg%02d/f%04d.go", i/100, i)] = src.String()
	}
	env := newEnv(b, files)
	b.ResetTimer()
	for b.Loop() {
		out := family.Ok(b, env, "find_symbol", map[string]any{"name": "TargetName"})
		if !strings.HasPrefix(out, "pkg12/f1234.go:") {
			b.Fatal(out)
		}
	}
}
