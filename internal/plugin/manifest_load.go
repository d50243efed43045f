package plugin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/shiro-neko/shiro/internal/problem"
)

// LoadManifests loads the manifest plugins from dirs, each holding
// <name>.json files. A missing directory holds nothing. A later directory
// overrides an earlier one by name, so pass the user's directory
// (~/.shiro-neko/plugins) before the project's (.shiro/plugins): the later
// manifest's description, appendix and rules take the name, and the
// earlier manifest's rules still apply after its own. A repository can
// thus extend a user's plugin but never switch one of its denials off. The
// plugins come back sorted by name, each with Source set to its file.
func LoadManifests(dirs ...string) ([]Plugin, []problem.Problem) {
	byName := make(map[string]Plugin)
	var problems []problem.Problem
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			problems = append(problems, problem.Problem{Kind: "plugin", Where: dir, Err: fmt.Sprintf("plugin manifests in %s: %v", dir, err)})
			continue
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".json") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			m, err := loadManifestFile(path)
			if err != nil {
				problems = append(problems, problem.Problem{Kind: "plugin", Where: path, Err: err.Error()})
				continue
			}
			p := m.Plugin()
			p.Source = path
			if earlier, ok := byName[m.Name]; ok {
				p = overlay(p, earlier)
			}
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

// overlay makes later take earlier's name while keeping earlier's denials:
// later's rules are checked first, then earlier's, and the model is told
// about both.
func overlay(later, earlier Plugin) Plugin {
	first, second := later.BeforeToolCall, earlier.BeforeToolCall
	later.BeforeToolCall = func(ctx context.Context, c Call) (string, error) {
		if reason, err := first(ctx, c); reason != "" || err != nil {
			return reason, err
		}
		return second(ctx, c)
	}
	if earlier.Appendix != "" && earlier.Appendix != later.Appendix {
		later.Appendix += "\n" + earlier.Appendix
	}
	return later
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
