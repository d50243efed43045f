package headless

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Schema is the JSON Schema of --output-schema: the final answer of a run
// must validate against it.
type Schema struct {
	// Path is the file as the person named it, for messages.
	Path string
	// Raw is the schema, compacted, as it goes to the model.
	Raw      json.RawMessage
	compiled *jsonschema.Schema
}

// LoadSchema reads and compiles the schema in path (relative to cwd). A
// file that is missing, not JSON, not an object or not a valid schema
// (checked against its draft's meta-schema) is an error naming the file,
// so the run stops before any model call. A "$ref" may name other files
// beside it; nothing is fetched from the network.
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
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("--output-schema %s is not JSON: %w", path, err)
	}
	loc := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	c := jsonschema.NewCompiler()
	// Files only: the default loader's, without any network scheme.
	c.UseLoader(jsonschema.SchemeURLLoader{"file": jsonschema.FileLoader{}})
	if err := c.AddResource(loc, doc); err != nil {
		return nil, fmt.Errorf("--output-schema %s: %w", path, err)
	}
	compiled, err := c.Compile(loc)
	if err != nil {
		return nil, fmt.Errorf("--output-schema %s is not a valid JSON Schema: %w", path, err)
	}
	var raw bytes.Buffer
	if err := json.Compact(&raw, b); err != nil {
		return nil, fmt.Errorf("--output-schema %s: %w", path, err)
	}
	return &Schema{Path: path, Raw: raw.Bytes(), compiled: compiled}, nil
}

// Check validates an answer and returns it as compact JSON. A code fence
// around the whole answer is taken off first: models asked for JSON in
// prose (those without a structured-output format) often add one. The
// error says where the answer fails, by JSON pointer into it.
func (s *Schema) Check(answer string) (json.RawMessage, error) {
	text := unfence(answer)
	v, err := jsonschema.UnmarshalJSON(strings.NewReader(text))
	if err != nil {
		return nil, fmt.Errorf("the answer is not a JSON value: %w", err)
	}
	if err := s.compiled.Validate(v); err != nil {
		return nil, failures(err)
	}
	var out bytes.Buffer
	if err := json.Compact(&out, []byte(text)); err != nil {
		return nil, fmt.Errorf("the answer is not a JSON value: %w", err)
	}
	return out.Bytes(), nil
}

// failures lists what failed where: one "at /path: reason" per leaf, the
// top level named as such.
func failures(err error) error {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var parts []string
	for _, u := range ve.BasicOutput().Errors {
		if u.Error == nil {
			continue
		}
		at := u.InstanceLocation
		if at == "" {
			at = "the top level"
		}
		parts = append(parts, fmt.Sprintf("at %s: %s", at, u.Error))
	}
	if len(parts) == 0 {
		return err
	}
	return errors.New(strings.Join(parts, "; "))
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
