package plugin

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Problem is a manifest that could not be loaded. It is reported (on the
// dashboard, by /plugins) and the manifest is skipped; it never stops
// start-up.
type Problem struct {
	Path string
	Err  error
}

func (p Problem) Error() string { return p.Err.Error() }

// LoadManifests loads the manifest plugins from dirs, each holding
// <name>.json files. A later directory overrides an earlier one by name, so
// pass the user's directory (~/.shiro-neko/plugins) before the project's
// (.shiro/plugins). A missing directory holds nothing. The plugins come
// back sorted by name, each with Source set to its file.
func LoadManifests(dirs ...string) ([]Plugin, []Problem) {
	byName := make(map[string]Plugin)
	var problems []Problem
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, Problem{Path: dir, Err: fmt.Errorf("plugin manifests in %s: %w", dir, err)})
			continue
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".json") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			m, err := loadManifestFile(path)
			if err != nil {
				problems = append(problems, Problem{Path: path, Err: err})
				continue
			}
			p := m.Plugin()
			p.Source = path
			byName[m.Name] = p
		}
	}
	out := make([]Plugin, 0, len(byName))
	for _, p := range byName {
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Plugin) int { return strings.Compare(a.Name, b.Name) })
	return out, problems
}

// loadManifestFile reads and validates one manifest, whose name must match
// its file name so that overriding by name is predictable.
func loadManifestFile(path string) (Manifest, error) {
	data, err := readManifestFile(path)
	if err != nil {
		return Manifest{}, err
	}
	m, err := ParseManifest(path, data)
	if err != nil {
		return Manifest{}, err
	}
	if want := strings.TrimSuffix(filepath.Base(path), ".json"); m.Name != want {
		return Manifest{}, &ManifestError{File: path, Field: "name",
			Problem: fmt.Sprintf("%q does not match the file name; rename the file to %s.json or the plugin to %q", m.Name, m.Name, want)}
	}
	return m, nil
}

// readManifestFile reads a regular file of at most MaxManifestBytes. The
// type is checked first because opening a FIFO would block start-up.
func readManifestFile(path string) ([]byte, error) {
	fail := func(problem string) error { return &ManifestError{File: path, Problem: problem} }
	info, err := os.Stat(path)
	if err != nil {
		return nil, fail(fmt.Sprintf("cannot read it: %v", err))
	}
	if !info.Mode().IsRegular() {
		return nil, fail("not a regular file; a manifest is a .json file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fail(fmt.Sprintf("cannot read it: %v", err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxManifestBytes+1))
	if err != nil {
		return nil, fail(fmt.Sprintf("cannot read it: %v", err))
	}
	return data, nil
}
