// Package external loads the original's external tools: JSON manifests in
// ~/.shiro-neko/tools and .shiro/tools that each describe one tool of kind
// shell (a command line), http (an https GET) or read (a workspace file),
// with `{arg}` standing for the one argument the model passes. A bad
// manifest is reported with its file and field, and the others still load.
package external

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/problem"
)

// Limits of a manifest, the reference's.
const (
	nameMax        = 40
	descriptionMax = 300
	commandMax     = 500
	urlMax         = 500
	pathMax        = 300
	// fileMax bounds what is read of one manifest file.
	fileMax = 64 << 10
)

// Kinds of external tool.
const (
	KindShell = "shell"
	KindHTTP  = "http"
	KindRead  = "read"
)

var namePattern = regexp.MustCompile(`(?i)^[a-z0-9][a-z0-9_-]*$`)

// Manifest is one tool's description as written.
type Manifest struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Kind        string `json:"kind"`
	Command     string `json:"command,omitempty"`
	URL         string `json:"url,omitempty"`
	Path        string `json:"path,omitempty"`
	// AutoApprove is read for the original's files; it never lets a call
	// past the permission gate (see docs/tools.md).
	AutoApprove *bool `json:"autoApprove,omitempty"`

	// File is where the manifest was read from.
	File string `json:"-"`
	// Content is the file's bytes, for approval by digest.
	Content []byte `json:"-"`
}

// Load reads every *.json manifest in dir, in name order. A missing dir is
// no tools and no problem.
func Load(dir string) ([]Manifest, []problem.Problem) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []problem.Problem{{Kind: "tool", Where: dir, Err: fmt.Sprintf("read the tools folder: %v", err)}}
	}
	var out []Manifest
	var problems []problem.Problem
	seen := map[string]string{}
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".json" {
			continue
		}
		file := filepath.Join(dir, e.Name())
		m, err := readManifest(file)
		if err == nil && seen[strings.ToLower(m.Name)] != "" {
			err = fmt.Errorf("field \"name\": %q is also the name of %s; rename one", m.Name, seen[strings.ToLower(m.Name)])
		}
		if err != nil {
			problems = append(problems, problem.Problem{Kind: "tool", Where: file, Err: err.Error()})
			continue
		}
		m.File = file
		seen[strings.ToLower(m.Name)] = file
		out = append(out, m)
	}
	return out, problems
}

// readManifest reads and checks one manifest file.
func readManifest(file string) (Manifest, error) {
	f, err := os.Open(file)
	if err != nil {
		return Manifest{}, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, fileMax+1))
	if err != nil {
		return Manifest{}, err
	}
	if len(data) > fileMax {
		return Manifest{}, fmt.Errorf("the file is over %d KB; a manifest describes one tool", fileMax>>10)
	}
	return Parse(data)
}

// Parse decodes and checks a manifest; an error names the field at fault.
func Parse(data []byte) (Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return Manifest{}, fmt.Errorf("field %q: want a %s", te.Field, te.Type)
		}
		return Manifest{}, fmt.Errorf("not a tool manifest: %w", err)
	}
	if err := m.check(); err != nil {
		return Manifest{}, err
	}
	m.Content = data
	return m, nil
}

func fieldErr(field, format string, args ...any) error {
	return fmt.Errorf("field %q: "+format, append([]any{field}, args...)...)
}

// check applies the reference's schema and limits.
func (m *Manifest) check() error {
	switch {
	case m.Name == "":
		return fieldErr("name", "is required")
	case utf8.RuneCountInString(m.Name) > nameMax || !namePattern.MatchString(m.Name):
		return fieldErr("name", "%q must be letters, digits, - and _ (starting with a letter or digit), at most %d", m.Name, nameMax)
	case strings.TrimSpace(m.Description) == "":
		return fieldErr("description", "is required: it is what the model reads")
	case utf8.RuneCountInString(m.Description) > descriptionMax:
		return fieldErr("description", "is over %d characters", descriptionMax)
	}
	want := map[string]string{KindShell: "command", KindHTTP: "url", KindRead: "path"}
	field, ok := want[m.Kind]
	if !ok {
		return fieldErr("kind", "%q is not a kind; use shell, http or read", m.Kind)
	}
	values := map[string]string{"command": m.Command, "url": m.URL, "path": m.Path}
	limits := map[string]int{"command": commandMax, "url": urlMax, "path": pathMax}
	for _, f := range slices.Sorted(maps.Keys(values)) {
		v := values[f]
		switch {
		case f != field && v != "":
			return fieldErr(f, "does not belong to a %s tool (it takes %q)", m.Kind, field)
		case f == field && strings.TrimSpace(v) == "":
			return fieldErr(f, "is required for a %s tool", m.Kind)
		case utf8.RuneCountInString(v) > limits[f]:
			return fieldErr(f, "is over %d characters", limits[f])
		}
	}
	if m.Kind == KindHTTP {
		u, err := url.Parse(strings.ReplaceAll(m.URL, "{arg}", "x"))
		if err != nil || u.Scheme != "https" || u.Host == "" {
			return fieldErr("url", "%q must be an https:// address", m.URL)
		}
	}
	return nil
}
