package search

import (
	"bytes"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace"
)

// FuzzNamePattern checks glob/include patterns never panic when parsed
// and matched, and that the check run before a call is judged accepts
// exactly what the run itself accepts.
func FuzzNamePattern(f *testing.F) {
	for _, s := range []string{"*.go", "**/*.go", "src/**/x_{a,b}.ts", "[a-", "./x/../y", "\\*", "{a,{b,c}}/**", "/ws/a/*.go", "/etc/*"} {
		f.Add(s, "src/a/x_a.ts")
	}
	env := &workspace.Env{Root: "/ws"}
	f.Fuzz(func(t *testing.T, pattern, path string) {
		_, checkErr := cleanPattern(env.Root, pattern)
		p, err := ParseNamePattern(env, pattern)
		if (checkErr == nil) != (err == nil) {
			t.Fatalf("%q: check says %v, parse says %v", pattern, checkErr, err)
		}
		if err != nil {
			return
		}
		p.Match(path)
		p.walkBounds()
		if inc, err := ParseInclude(pattern); err == nil {
			inc.Match(path)
		}
	})
}

// FuzzReadRipgrep feeds arbitrary bytes as ripgrep's output: the parser
// must not panic, and every hit it keeps must have a positive line number.
func FuzzReadRipgrep(f *testing.F) {
	f.Add([]byte("a.txt\x001:hello\n./b/c.go\x0012:x [... omitted end of long line]\n"))
	f.Add([]byte("bin: WARNING: stopped searching binary file\n\x00:\n\x00-1:x\n"))
	env := &workspace.Env{Root: f.TempDir()}
	f.Fuzz(func(t *testing.T, out []byte) {
		col := newHitCollector()
		q := &grepQuery{pattern: "x", includeIgnored: true}
		if err := readRipgrep(bytes.NewReader(out), env, q, col); err != nil {
			return
		}
		for _, h := range col.kept {
			if h.line < 1 {
				t.Fatalf("hit with line %d", h.line)
			}
		}
	})
}
