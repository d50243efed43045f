package headless

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/url"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// explainer finds where an answer that the validator refused fails its
// schema, each failure named by its JSON pointer into the answer, as
// docs/headless.md promises: the validator reports only the first, and
// where it is in the schema. It reads the keywords a person's schema for
// an answer uses; a failure in one it does not read (dependencies,
// unevaluated*, propertyNames, contains counts, a $ref into another file)
// leaves the validator's own message as the explanation.
type explainer struct {
	// docs are the schema documents by URL: the file named on the
	// command line and those its $refs name.
	docs   map[string]*jsonschema.Schema
	draft7 bool
	out    []string
}

// scope is where a walk is: the document whose "#" refs it follows, that
// document's URL for relative ones, and how many refs it has followed.
type scope struct {
	doc  *jsonschema.Schema
	base *url.URL
	refs int
}

// maxRefDepth bounds how many $refs explain follows down one path, since
// a recursive schema with a recursive answer would otherwise not end.
const maxRefDepth = 32

func explain(docs map[string]*jsonschema.Schema, base *url.URL, v any) []string {
	root := docs[base.String()]
	e := &explainer{docs: docs, draft7: strings.Contains(root.Schema, "draft-07")}
	e.walk(root, v, "", scope{doc: root, base: base})
	return e.out
}

func (e *explainer) fail(at, format string, args ...any) {
	if at == "" {
		at = "the top level"
	}
	e.out = append(e.out, "at "+at+": "+fmt.Sprintf(format, args...))
}

// passes reports whether v meets s, as far as the explainer reads s.
func (e *explainer) passes(s *jsonschema.Schema, v any, sc scope) bool {
	sub := &explainer{docs: e.docs, draft7: e.draft7}
	sub.walk(s, v, "", sc)
	return len(sub.out) == 0
}

func (e *explainer) walk(s *jsonschema.Schema, v any, at string, sc scope) {
	if s.Ref != "" {
		if target, in := e.resolve(s.Ref, sc); target != nil && sc.refs < maxRefDepth {
			e.walk(target, v, at, in)
		}
		if e.draft7 {
			return // draft-07: the keywords beside a $ref are ignored
		}
	}
	if !e.typeMatches(s, v, at) {
		return
	}
	if s.Enum != nil && !slices.ContainsFunc(s.Enum, func(x any) bool { return jsonschema.Equal(x, v) }) {
		e.fail(at, "value must be one of %s", quoteAll(s.Enum))
	}
	if s.Const != nil && !jsonschema.Equal(*s.Const, v) {
		e.fail(at, "value must be %s", quote(*s.Const))
	}
	switch v := v.(type) {
	case float64:
		e.number(s, v, at)
	case string:
		e.text(s, v, at)
	case []any:
		e.array(s, v, at, sc)
	case map[string]any:
		e.object(s, v, at, sc)
	}
	e.logic(s, v, at, sc)
}

// resolve finds the schema a "$ref" names, in this document or a file
// beside it, and the scope it is in; nil for anything else ($ids,
// anchors).
func (e *explainer) resolve(ref string, sc scope) (*jsonschema.Schema, scope) {
	u, err := sc.base.Parse(ref)
	if err != nil {
		return nil, sc
	}
	frag := u.Fragment
	u.Fragment = ""
	doc := e.docs[u.String()]
	if doc == nil {
		return nil, sc
	}
	in := scope{doc: doc, base: u, refs: sc.refs + 1}
	name := unescapePointer(frag[strings.LastIndexByte(frag, '/')+1:])
	switch {
	case frag == "":
		return doc, in
	case frag == "/definitions/"+escapePointer(name):
		return doc.Definitions[name], in
	case frag == "/$defs/"+escapePointer(name):
		return doc.Defs[name], in
	}
	return nil, sc
}

func (e *explainer) typeMatches(s *jsonschema.Schema, v any, at string) bool {
	want := s.Types
	if s.Type != "" {
		want = []string{s.Type}
	}
	got := typeOf(v)
	if len(want) == 0 || slices.Contains(want, got) || got == "integer" && slices.Contains(want, "number") {
		return true
	}
	if got == "integer" {
		got = "number" // as a person reads it: "got number, want string"
	}
	e.fail(at, "got %s, want %s", got, strings.Join(want, " or "))
	return false
}

func (e *explainer) number(s *jsonschema.Schema, n float64, at string) {
	bound := func(limit *float64, ok func(n, l float64) bool, op string) {
		if limit != nil && !ok(n, *limit) {
			e.fail(at, "must be %s %v but found %v", op, *limit, n)
		}
	}
	bound(s.Minimum, func(n, l float64) bool { return n >= l }, ">=")
	bound(s.Maximum, func(n, l float64) bool { return n <= l }, "<=")
	bound(s.ExclusiveMinimum, func(n, l float64) bool { return n > l }, ">")
	bound(s.ExclusiveMaximum, func(n, l float64) bool { return n < l }, "<")
	if m := s.MultipleOf; m != nil && *m > 0 {
		if q := n / *m; q != math.Trunc(q) {
			e.fail(at, "%v is not a multiple of %v", n, *m)
		}
	}
}

func (e *explainer) text(s *jsonschema.Schema, t string, at string) {
	n := utf8.RuneCountInString(t)
	if s.MinLength != nil && n < *s.MinLength {
		e.fail(at, "length must be >= %d but found %d", *s.MinLength, n)
	}
	if s.MaxLength != nil && n > *s.MaxLength {
		e.fail(at, "length must be <= %d but found %d", *s.MaxLength, n)
	}
	if s.Pattern != "" {
		// The validator compiled it already; a schema's pattern is read
		// here only on the failure path.
		if re, err := regexp.Compile(s.Pattern); err == nil && !re.MatchString(t) {
			e.fail(at, "%s does not match pattern %s", quote(t), quote(s.Pattern))
		}
	}
}

func (e *explainer) array(s *jsonschema.Schema, items []any, at string, sc scope) {
	if s.MinItems != nil && len(items) < *s.MinItems {
		e.fail(at, "minimum %d items required, but found %d", *s.MinItems, len(items))
	}
	if s.MaxItems != nil && len(items) > *s.MaxItems {
		e.fail(at, "maximum %d items allowed, but found %d", *s.MaxItems, len(items))
	}
	prefix := s.PrefixItems
	rest := s.Items
	if s.ItemsArray != nil { // draft-07's positional "items"
		prefix, rest = s.ItemsArray, s.AdditionalItems
	}
	for i, item := range items {
		sub := rest
		if i < len(prefix) {
			sub = prefix[i]
		}
		if sub != nil {
			e.walk(sub, item, fmt.Sprintf("%s/%d", at, i), sc)
		}
	}
	if s.UniqueItems {
		for i := range items {
			for j := i + 1; j < len(items); j++ {
				if jsonschema.Equal(items[i], items[j]) {
					e.fail(at, "items at %d and %d are equal", i, j)
				}
			}
		}
	}
	if s.Contains != nil && !slices.ContainsFunc(items, func(x any) bool { return e.passes(s.Contains, x, sc) }) {
		e.fail(at, "no item matches the schema in 'contains'")
	}
}

func (e *explainer) object(s *jsonschema.Schema, obj map[string]any, at string, sc scope) {
	var missing []any
	for _, name := range s.Required {
		if _, ok := obj[name]; !ok {
			missing = append(missing, name)
		}
	}
	if len(missing) == 1 {
		e.fail(at, "missing property %s", quoteAll(missing))
	} else if len(missing) > 1 {
		e.fail(at, "missing properties %s", quoteAll(missing))
	}
	if s.MinProperties != nil && len(obj) < *s.MinProperties {
		e.fail(at, "minimum %d properties required, but found %d", *s.MinProperties, len(obj))
	}
	if s.MaxProperties != nil && len(obj) > *s.MaxProperties {
		e.fail(at, "maximum %d properties allowed, but found %d", *s.MaxProperties, len(obj))
	}
	var extra []any
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		where := at + "/" + escapePointer(name)
		matched := false
		if sub, ok := s.Properties[name]; ok {
			matched = true
			e.walk(sub, obj[name], where, sc)
		}
		for pattern, sub := range s.PatternProperties {
			if re, err := regexp.Compile(pattern); err == nil && re.MatchString(name) {
				matched = true
				e.walk(sub, obj[name], where, sc)
			}
		}
		switch {
		case matched || s.AdditionalProperties == nil:
		case isFalse(s.AdditionalProperties):
			extra = append(extra, name)
		default:
			e.walk(s.AdditionalProperties, obj[name], where, sc)
		}
	}
	if len(extra) > 0 {
		e.fail(at, "additional properties %s not allowed", quoteAll(extra))
	}
}

func (e *explainer) logic(s *jsonschema.Schema, v any, at string, sc scope) {
	for _, sub := range s.AllOf {
		e.walk(sub, v, at, sc)
	}
	matching := func(subs []*jsonschema.Schema) int {
		n := 0
		for _, sub := range subs {
			if e.passes(sub, v, sc) {
				n++
			}
		}
		return n
	}
	if len(s.AnyOf) > 0 && matching(s.AnyOf) == 0 {
		e.fail(at, "value matches none of the %d schemas in 'anyOf'", len(s.AnyOf))
	}
	if len(s.OneOf) > 0 {
		if n := matching(s.OneOf); n != 1 {
			e.fail(at, "value matches %d of the schemas in 'oneOf', want exactly one", n)
		}
	}
	if s.Not != nil && !isFalse(s) && e.passes(s.Not, v, sc) {
		e.fail(at, "value must not match the schema in 'not'")
	}
	if isFalse(s) {
		e.fail(at, "no value is allowed here")
	}
	if s.If != nil {
		if e.passes(s.If, v, sc) {
			if s.Then != nil {
				e.walk(s.Then, v, at, sc)
			}
		} else if s.Else != nil {
			e.walk(s.Else, v, at, sc)
		}
	}
}

// isFalse reports whether s is the schema false, which the parser reads
// as {"not": {}}.
func isFalse(s *jsonschema.Schema) bool {
	if s.Not == nil || !reflect.ValueOf(*s.Not).IsZero() {
		return false
	}
	rest := *s
	rest.Not = nil
	return reflect.ValueOf(rest).IsZero()
}

func typeOf(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if v == math.Trunc(v) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	default:
		return "object"
	}
}

// quote writes a value as messages show it: strings in single quotes,
// anything else as JSON.
func quote(v any) string {
	if s, ok := v.(string); ok {
		return "'" + s + "'"
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func quoteAll(vs []any) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = quote(v)
	}
	return strings.Join(parts, ", ")
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}
