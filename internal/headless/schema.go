package headless

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is the JSON Schema of --output-schema: the final answer of a run
// must validate against it.
type Schema struct {
	// Path is the file as the person named it, for messages.
	Path string
	// Raw is the schema, compacted, as it goes to the model.
	Raw      json.RawMessage
	resolved *jsonschema.Resolved
	// docs and base are for explain: the parsed documents by URL, and
	// the URL of this one.
	docs map[string]*jsonschema.Schema
	base *url.URL
}

// drafts maps the "$schema" values the validator reads (with or without a
// trailing "#") to the spelling it expects. Without "$schema" a schema is
// read as 2020-12.
var drafts = map[string]string{
	"http://json-schema.org/draft-07/schema":       "http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft-07/schema":      "https://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft/2020-12/schema": "https://json-schema.org/draft/2020-12/schema",
}

// jsonTypes are the names "type" may hold.
var jsonTypes = []string{"array", "boolean", "integer", "null", "number", "object", "string"}

// LoadSchema reads and resolves the schema in path (relative to cwd). A
// file that is missing, not JSON, not an object or not a valid schema is
// an error naming the file, so the run stops before any model call. A
// "$ref" may name other files beside it; nothing is fetched from the
// network.
func LoadSchema(cwd, path string) (*Schema, error) {
	abs := path
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(cwd, path)
	}
	b, err := os.ReadFile(abs)
	if err != nil {
		return nil, fmt.Errorf("--output-schema: %w", err)
	}
	var probe any
	if err := json.Unmarshal(b, &probe); err != nil {
		return nil, fmt.Errorf("--output-schema %s is not JSON: %w", path, err)
	}
	if _, ok := probe.(map[string]any); !ok {
		// true and false are schemas too, but no provider takes one as a
		// response format, and neither says anything about the answer.
		return nil, fmt.Errorf("--output-schema %s must hold a JSON object (a schema such as {\"type\":\"object\",…})", path)
	}
	s := &Schema{Path: path, base: &url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}, docs: map[string]*jsonschema.Schema{}}
	if err := s.resolve(b); err != nil {
		return nil, fmt.Errorf("--output-schema %s is not a valid JSON Schema: %w", path, err)
	}
	var raw bytes.Buffer
	if err := json.Compact(&raw, b); err != nil {
		return nil, fmt.Errorf("--output-schema %s: %w", path, err)
	}
	s.Raw = raw.Bytes()
	return s, nil
}

// resolve parses the schema file (its bytes b), checks what the parser
// does not (the draft, the type names) and resolves its references,
// reading only files.
func (s *Schema) resolve(b []byte) error {
	doc, err := parseSchema(b)
	if err != nil {
		return err
	}
	if doc.Schema != "" {
		want, ok := drafts[strings.TrimSuffix(doc.Schema, "#")]
		if !ok {
			return fmt.Errorf("at '/$schema': %s is not a draft this validator reads (draft-07 or 2020-12)", doc.Schema)
		}
		doc.Schema = want
	}
	if err := checkTypes(doc, ""); err != nil {
		return err
	}
	s.docs[s.base.String()] = doc
	s.resolved, err = doc.Resolve(&jsonschema.ResolveOptions{BaseURI: s.base.String(), Loader: s.loadFile})
	return err
}

func parseSchema(b []byte) (*jsonschema.Schema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("reading it: %w", err)
	}
	return &s, nil
}

// loadFile reads a schema that a "$ref" names: a file, never a URL.
func (s *Schema) loadFile(u *url.URL) (*jsonschema.Schema, error) {
	if u.Scheme != "file" {
		return nil, fmt.Errorf("%s: only files are read, nothing from the network", u)
	}
	b, err := os.ReadFile(filepath.FromSlash(u.Path))
	if err != nil {
		return nil, fmt.Errorf("reading a $ref: %w", err)
	}
	doc, err := parseSchema(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u.Path, err)
	}
	s.docs[u.String()] = doc
	return doc, checkTypes(doc, "")
}

// checkTypes refuses a "type" that names no JSON type, anywhere in s (at
// is s's place, a JSON pointer); the parser takes any string.
func checkTypes(s *jsonschema.Schema, at string) error {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	for _, t := range types {
		if !slices.Contains(jsonTypes, t) {
			return fmt.Errorf("at '%s/type': %q is not a JSON type (%s)", at, t, strings.Join(jsonTypes, ", "))
		}
	}
	var err error
	eachSubschema(s, at, func(sub *jsonschema.Schema, subAt string) {
		if err == nil {
			err = checkTypes(sub, subAt)
		}
	})
	return err
}

// eachSubschema calls f with every schema directly inside s and its
// place (at is s's), in a fixed order so that messages do not vary.
func eachSubschema(s *jsonschema.Schema, at string, f func(*jsonschema.Schema, string)) {
	one := func(name string, sub *jsonschema.Schema) {
		if sub != nil {
			f(sub, at+"/"+name)
		}
	}
	for _, single := range []struct {
		name string
		sub  *jsonschema.Schema
	}{{"items", s.Items}, {"additionalItems", s.AdditionalItems}, {"contains", s.Contains},
		{"unevaluatedItems", s.UnevaluatedItems}, {"additionalProperties", s.AdditionalProperties},
		{"propertyNames", s.PropertyNames}, {"unevaluatedProperties", s.UnevaluatedProperties}, {"not", s.Not},
		{"if", s.If}, {"then", s.Then}, {"else", s.Else}, {"contentSchema", s.ContentSchema}} {
		one(single.name, single.sub)
	}
	for _, list := range []struct {
		name string
		subs []*jsonschema.Schema
	}{{"items", s.ItemsArray}, {"prefixItems", s.PrefixItems}, {"allOf", s.AllOf}, {"anyOf", s.AnyOf}, {"oneOf", s.OneOf}} {
		for i, sub := range list.subs {
			one(fmt.Sprintf("%s/%d", list.name, i), sub)
		}
	}
	for _, named := range []struct {
		name string
		subs map[string]*jsonschema.Schema
	}{{"$defs", s.Defs}, {"definitions", s.Definitions}, {"properties", s.Properties}, {"patternProperties", s.PatternProperties},
		{"dependentSchemas", s.DependentSchemas}, {"dependencies", s.DependencySchemas}} {
		for _, k := range slices.Sorted(maps.Keys(named.subs)) {
			one(named.name+"/"+escapePointer(k), named.subs[k])
		}
	}
}

// Check validates an answer and returns it as compact JSON. A code fence
// around the whole answer is taken off first: models asked for JSON in
// prose (those without a structured-output format) often add one. The
// error says where the answer fails, by JSON pointer into it.
func (s *Schema) Check(answer string) (json.RawMessage, error) {
	text := unfence(answer)
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		return nil, fmt.Errorf("the answer is not a JSON value: %w", err)
	}
	if err := s.resolved.Validate(v); err != nil {
		return nil, s.failures(v, err)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, []byte(text)); err != nil {
		return nil, fmt.Errorf("the answer is not a JSON value: %w", err)
	}
	return out.Bytes(), nil
}

// failures lists what failed where: one "at /path: reason" per failure
// that explain places in the answer, the top level named as such. The
// validator itself stops at the first failure and names its place in the
// schema, not in the answer, so its message is only the fallback, for the
// keywords explain does not read.
func (s *Schema) failures(v any, err error) error {
	if out := explain(s.docs, s.base, v); len(out) > 0 {
		return errors.New(strings.Join(out, "; "))
	}
	return fmt.Errorf("the answer fails the schema: %w", err)
}

// unfence returns the text inside a code fence that wraps the whole
// answer (```json … ``` or ``` … ```), or the answer trimmed.
func unfence(answer string) string {
	t := strings.TrimSpace(answer)
	if !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") || len(t) < 6 {
		return t
	}
	inner := t[3 : len(t)-3]
	nl := strings.IndexByte(inner, '\n')
	if nl < 0 {
		return t
	}
	if lang := strings.TrimSpace(inner[:nl]); lang != "" && lang != "json" {
		return t
	}
	return strings.TrimSpace(inner[nl+1:])
}
