package files

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

const pkgJSON = `{
  "name": "demo",
  "version": "1.0.0",
  "scripts": {"test": "vitest", "build": "tsc"},
  "files": ["dist", {"glob": "*.d.ts"}],
  "a.b": {"c": true},
  "7": "seven",
  "empty": {},
  "n": null,
  "big": 12345678901234567890
}`

func TestJSONQuery(t *testing.T) {
	t.Parallel()
	env := wstest.Env(t, map[string]string{"package.json": pkgJSON, "bad.json": "{\n  \"a\": 1,\n}\n", "list.json": "[1, [2, 3]]"})
	cases := map[string]string{
		"scripts.test":   `scripts.test = "vitest"`,
		"scripts":        "scripts = {\n  \"test\": \"vitest\",\n  \"build\": \"tsc\"\n}",
		"files.0":        `files.0 = "dist"`,
		"files.1.glob":   `files.1.glob = "*.d.ts"`,
		"files[1].glob":  `files[1].glob = "*.d.ts"`,
		"files[-1].glob": `files[-1].glob = "*.d.ts"`,
		"$.name":         `$.name = "demo"`,
		".name":          `.name = "demo"`,
		`["a.b"].c`:      `["a.b"].c = true`,
		`['a.b']["c"]`:   `['a.b']["c"] = true`,
		"7":              `7 = "seven"`,
		"n":              "n = null",
		"big":            "big = 12345678901234567890",
		"empty":          "empty = {}",
		" version ":      `version = "1.0.0"`,
	}
	for q, want := range cases {
		if got := family.Ok(t, env, "json_query", map[string]any{"path": "package.json", "query": q}); got != want {
			t.Errorf("query %q:\n got %q\nwant %q", q, got, want)
		}
	}
	if got := family.Ok(t, env, "json_query", map[string]any{"path": "list.json", "query": ""}); got != ". = [\n  1,\n  [\n    2,\n    3\n  ]\n]" {
		t.Errorf("whole document: %q", got)
	}
	if got := family.Ok(t, env, "json_query", map[string]any{"path": "list.json", "query": "1.0"}); got != "1.0 = 2" {
		t.Errorf("nested arrays: %q", got)
	}
	errs := map[string]string{
		"scripts.lint": `scripts has no key "lint". Keys there: test, build.`,
		"files.2":      "files has 2 items; index 2 is out of range.",
		"files.x":      `files is an array; index it with a number, not "x".`,
		"name.first":   "name is a string, not an object or array, so it has no first.",
		"n.x":          "n is null, not an object or array, so it has no x.",
		"empty.x":      `empty is an empty object; it has no key "x".`,
		"a..b":         `query "a..b" has an empty step at character 2.`,
		"a.":           `query "a." has an empty step at character 2.`,
		"files[x]":     `query "files[x]": [x] is not an index; write [0] or ["key"].`,
		"files[0":      `query "files[0": '[' at character 6 is not closed.`,
		`["a`:          `query "[\"a": the quoted key at character 2 is not closed.`,
		`["a"x`:        `query "[\"a\"x": expected ']' after the quoted key at character 5.`,
		`files[0]x`:    `query "files[0]x" needs a '.' before character 9.`,
		"big.x":        "big is a number, not an object or array, so it has no x.",
		"files[0][0]":  "files[0] is a string, not an object or array, so it has no [0].",
		`["a.b"].c.d`:  `["a.b"].c is a boolean, not an object or array, so it has no d.`,
	}
	for q, want := range errs {
		msg := ""
		if strings.HasPrefix(want, "query ") {
			// A query that does not parse is refused before the call runs.
			msg = strings.TrimPrefix(family.Refuse(t, env, "json_query", map[string]any{"path": "package.json", "query": q}).Error(), "invalid arguments: ")
		} else {
			msg = family.Fail(t, env, "json_query", map[string]any{"path": "package.json", "query": q})
		}
		if msg != want {
			t.Errorf("query %q:\n got %q\nwant %q", q, msg, want)
		}
	}
	msg := family.Fail(t, env, "json_query", map[string]any{"path": "bad.json", "query": "a"})
	if !strings.HasPrefix(msg, "bad.json is not valid JSON (line 3, column 1): ") {
		t.Errorf("bad JSON: %q", msg)
	}
	if msg := family.Fail(t, env, "json_query", map[string]any{"path": "../x.json", "query": "a"}); !strings.HasPrefix(msg, "path escapes workspace") {
		t.Errorf("jail: %q", msg)
	}
}

func TestJSONQueryListsTwelveKeys(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString("{")
	for i := range 20 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"k` + string(rune('a'+i)) + `":1`)
	}
	b.WriteString("}")
	env := wstest.Env(t, map[string]string{"k.json": b.String()})
	msg := family.Fail(t, env, "json_query", map[string]any{"path": "k.json", "query": "zz"})
	want := `the top level has no key "zz". Keys there: ka, kb, kc, kd, ke, kf, kg, kh, ki, kj, kk, kl (and 8 more).`
	if msg != want {
		t.Errorf("got %q\nwant %q", msg, want)
	}
}

func FuzzParseQuery(f *testing.F) {
	for _, s := range []string{"a.b.0", `["a.b"].c`, "$.x[-1]", "a..b", "[", `['x\'y']`, "0.1.2", ".", "$", "a[0]b"} {
		f.Add(s)
	}
	doc := json.RawMessage(pkgJSON)
	f.Fuzz(func(t *testing.T, q string) {
		segs, err := parseQuery(q)
		if err != nil {
			return
		}
		// Whatever parses can be looked up without a panic, and its path
		// can be rendered.
		_ = pathString(segs)
		v, err := lookup(doc, segs)
		if err == nil && !json.Valid(v) {
			t.Fatalf("query %q gave invalid JSON %q", q, v)
		}
	})
}
