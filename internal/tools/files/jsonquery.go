package files

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/strictjson"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// jsonKeysListed is how many existing keys a missing-key error names.
const jsonKeysListed = 12

// querySeg is one step of a json_query path.
type querySeg struct {
	key string
	// index is set for a numeric step: it indexes an array (negative counts
	// from the end) and is the key "N" in an object.
	index   int
	numeric bool
	// quoted steps (["a.b"]) are keys only.
	quoted bool
}

func (s querySeg) String() string {
	switch {
	case s.numeric:
		return "[" + strconv.Itoa(s.index) + "]"
	case s.quoted || strings.ContainsAny(s.key, ".[]\"' ") || s.key == "":
		return "[" + strconv.Quote(s.key) + "]"
	}
	return "." + s.key
}

// pathString renders steps as a path for messages.
func pathString(segs []querySeg) string {
	if len(segs) == 0 {
		return "the top level"
	}
	var b strings.Builder
	for _, s := range segs {
		b.WriteString(s.String())
	}
	return strings.TrimPrefix(b.String(), ".")
}

// parseQuery reads a dotted path: `a.b.0.c`, with `[0]`, `[-1]` and
// `["key.with.dots"]` steps also accepted and an optional leading `$` or
// `.`. An empty query is the whole document.
func parseQuery(q string) ([]querySeg, error) {
	q = strings.TrimSpace(q)
	q = strings.TrimPrefix(q, "$")
	var segs []querySeg
	i := 0
	needDot := false // a bare step must be separated from the one before
	for i < len(q) {
		switch c := q[i]; {
		case c == '.':
			if i+1 == len(q) || q[i+1] == '.' {
				if len(segs) == 0 && i+1 == len(q) {
					return nil, nil // "." alone: the whole document
				}
				return nil, tool.Failf("query %q has an empty step at character %d.", q, i+1)
			}
			i++
			needDot = false
		case c == '[':
			seg, n, err := parseBracket(q, i)
			if err != nil {
				return nil, err
			}
			segs = append(segs, seg)
			i += n
			needDot = true
		default:
			if needDot {
				return nil, tool.Failf("query %q needs a '.' before character %d.", q, i+1)
			}
			end := i
			for end < len(q) && q[end] != '.' && q[end] != '[' {
				end++
			}
			segs = append(segs, bareSeg(q[i:end]))
			i = end
			needDot = true
		}
	}
	return segs, nil
}

func bareSeg(s string) querySeg {
	digits := strings.TrimPrefix(s, "-")
	if digits != "" && strings.Trim(digits, "0123456789") == "" && len(digits) < 10 {
		n, _ := strconv.Atoi(s)
		return querySeg{key: s, index: n, numeric: true}
	}
	return querySeg{key: s}
}

// parseBracket reads `[N]` or `["key"]` / `['key']` at q[i]; it returns
// the step and how many bytes it took.
func parseBracket(q string, i int) (querySeg, int, error) {
	body := q[i+1:]
	if body == "" {
		return querySeg{}, 0, tool.Failf("query %q: '[' at character %d is not closed.", q, i+1)
	}
	if quote := body[0]; quote == '"' || quote == '\'' {
		var key strings.Builder
		for j := 1; j < len(body); j++ {
			switch c := body[j]; {
			case c == '\\' && j+1 < len(body):
				j++
				key.WriteByte(body[j])
			case c == quote:
				if j+1 >= len(body) || body[j+1] != ']' {
					return querySeg{}, 0, tool.Failf("query %q: expected ']' after the quoted key at character %d.", q, i+j+3)
				}
				return querySeg{key: key.String(), quoted: true}, j + 3, nil
			default:
				key.WriteByte(c)
			}
		}
		return querySeg{}, 0, tool.Failf("query %q: the quoted key at character %d is not closed.", q, i+2)
	}
	end := strings.IndexByte(body, ']')
	if end < 0 {
		return querySeg{}, 0, tool.Failf("query %q: '[' at character %d is not closed.", q, i+1)
	}
	seg := bareSeg(strings.TrimSpace(body[:end]))
	if !seg.numeric {
		return querySeg{}, 0, tool.Failf("query %q: [%s] is not an index; write [0] or [\"key\"].", q, body[:end])
	}
	return seg, end + 2, nil
}

// ---- json_query ----

type jsonQueryInput struct {
	Path  string `json:"path"`
	Query string `json:"query" jsonschema:"e.g. scripts.test or items.0.name"`
}

func jsonQueryTool(env *workspace.Env) tool.Tool {
	return tool.New(tool.Def[jsonQueryInput]{
		Info: tool.Info{
			Name:        "json_query",
			Description: "Read one value from a JSON file by dotted path (numbers index arrays).",
			Guidance:    "json_query: read a value from a large JSON file without reading it all.",
			Set:         tool.SetNav,
			Effect:      tool.Reads,
			Kind:        protocol.KindRead,
			Subject:     tool.PathSubject,
		},
		Check: func(in *jsonQueryInput) error {
			_, err := parseQuery(in.Query)
			return err
		},
		Plan: func(in *jsonQueryInput) tool.Plan {
			return tool.Plan{Subjects: fileop.PathSubjects(in.Path), Title: fileop.Title(in.Path + " " + queryText(in.Query))}
		},
		Run: func(_ context.Context, _ tool.Runtime, in *jsonQueryInput) (tool.Result, error) {
			return tool.TextOf(jsonQuery(env, in))
		},
	})
}

// queryText is the query as results show it: "." for the whole document.
func queryText(q string) string {
	q = strings.TrimSpace(q)
	if q == "" {
		return "."
	}
	return q
}

func jsonQuery(env *workspace.Env, in *jsonQueryInput) (string, error) {
	segs, err := parseQuery(in.Query)
	if err != nil {
		return "", err
	}
	f, err := fileop.ReadText(env, in.Path)
	if err != nil {
		return "", err
	}
	var doc json.RawMessage
	if err := json.Unmarshal(f.Data, &doc); err != nil {
		return "", jsonSyntax(f.Rel, f.Data, err)
	}
	v, err := lookup(doc, segs)
	if err != nil {
		return "", err
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, v, "", "  "); err != nil {
		return "", fmt.Errorf("format %s: %w", pathString(segs), err)
	}
	return tool.Cap(queryText(in.Query) + " = " + pretty.String()), nil
}

// jsonSyntax says where a file stops being JSON.
func jsonSyntax(rel string, data []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return tool.Failf("%s is not valid JSON: %v", rel, err)
	}
	// Offset counts the byte that broke the syntax; point at that byte.
	before := data[:min(max(int(se.Offset)-1, 0), len(data))]
	line := bytes.Count(before, []byte{'\n'}) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n')
	return tool.Failf("%s is not valid JSON (line %d, column %d): %v. Comments and trailing commas are not JSON.", rel, line, col, se)
}

// lookup follows segs into doc.
func lookup(doc json.RawMessage, segs []querySeg) (json.RawMessage, error) {
	v := doc
	for i, s := range segs {
		at := pathString(segs[:i])
		switch kind := strictjson.Kind(v); kind {
		case "an object":
			var obj map[string]json.RawMessage
			if err := json.Unmarshal(v, &obj); err != nil {
				return nil, fmt.Errorf("read %s: %w", at, err)
			}
			next, ok := obj[s.key]
			if !ok {
				return nil, missingKey(v, at, s.key)
			}
			v = next
		case "an array":
			if !s.numeric {
				return nil, tool.Failf("%s is an array; index it with a number, not %q.", at, s.key)
			}
			var arr []json.RawMessage
			if err := json.Unmarshal(v, &arr); err != nil {
				return nil, fmt.Errorf("read %s: %w", at, err)
			}
			idx := s.index
			if idx < 0 {
				idx += len(arr)
			}
			if idx < 0 || idx >= len(arr) {
				return nil, tool.Failf("%s has %d items; index %d is out of range.", at, len(arr), s.index)
			}
			v = arr[idx]
		default:
			return nil, tool.Failf("%s is %s, not an object or array, so it has no %s.", at, kind, strings.TrimPrefix(s.String(), "."))
		}
	}
	return v, nil
}

// missingKey lists the keys that do exist, in document order.
func missingKey(obj json.RawMessage, at, key string) error {
	keys := objectKeys(obj)
	if len(keys) == 0 {
		return tool.Failf("%s is an empty object; it has no key %q.", at, key)
	}
	shown := keys[:min(len(keys), jsonKeysListed)]
	msg := fmt.Sprintf("%s has no key %q. Keys there: %s", at, key, strings.Join(shown, ", "))
	if len(keys) > len(shown) {
		msg += fmt.Sprintf(" (and %d more)", len(keys)-len(shown))
	}
	return tool.Failf("%s", msg+".")
}

// objectKeys returns an object's keys in the order they appear.
func objectKeys(obj json.RawMessage) []string {
	dec := json.NewDecoder(bytes.NewReader(obj))
	if _, err := dec.Token(); err != nil {
		return nil
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return keys
		}
		k, _ := tok.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}
