package registry

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/shiro-neko/shiro/internal/fsutil"
	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/skills"
)

// Action says what a Change did.
type Action string

// The two actions.
const (
	ActionInstalled Action = "installed"
	ActionRemoved   Action = "removed"
)

// Change is a file the registry wrote or deleted. The running app must
// rebuild its skills and plugins to see it, and does so at the next turn
// boundary, never mid-turn.
type Change struct {
	Action Action
	Kind   Kind
	Name   string
	Path   string
	// Replaced is true when an install overwrote an installed copy.
	Replaced bool
}

func (c Change) String() string {
	s := fmt.Sprintf("%s %s %s (%s)", c.Action, c.Kind, c.Name, c.Path)
	if c.Replaced {
		s += ", replacing the previous copy"
	}
	return s
}

// Install writes a staged entry's checked bytes, atomically (a temp file
// renamed into place), so a reader sees the old file or the new one.
func (c *Client) Install(s *Staged) (Change, error) {
	if s == nil || s.body == nil {
		return Change{}, errors.New("nothing staged: call Stage first")
	}
	if err := fsutil.WriteFileAtomic(s.path, s.body, 0o600); err != nil {
		return Change{}, fmt.Errorf("installing %s %q: %w", s.entry.Kind, s.entry.Name, err)
	}
	return Change{Action: ActionInstalled, Kind: s.entry.Kind, Name: s.entry.Name, Path: s.path, Replaced: s.replaces}, nil
}

// Remove deletes an installed entry. A bare name removes the skill of that
// name if there is one, and otherwise the plugin.
func (c *Client) Remove(ref Ref) (Change, error) {
	kinds := []Kind{KindSkill, KindPlugin}
	if ref.Kind != "" {
		kinds = []Kind{ref.Kind}
	}
	if err := checkName(ref.Name); err != nil {
		return Change{}, fmt.Errorf("%q: %w", ref.Name, err)
	}
	for _, kind := range kinds {
		path := c.pathFor(kind, ref.Name)
		err := os.Remove(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return Change{}, fmt.Errorf("removing %s %q: %w", kind, ref.Name, err)
		}
		return Change{Action: ActionRemoved, Kind: kind, Name: ref.Name, Path: path}, nil
	}
	what := "nothing"
	if ref.Kind != "" {
		what = "no " + string(ref.Kind)
	}
	return Change{}, fmt.Errorf("%s named %q is installed from the registry (in %s); see `shiro registry installed`", what, ref.Name, c.opts.Dir)
}

// InstalledEntry is a file in the registry's install directories.
type InstalledEntry struct {
	Kind        Kind
	Name        string
	Description string
	Path        string
	// Signer is a plugin's signer; skills keep no signature on disk.
	Signer string
	// Problem says why the file would not load, or is "".
	Problem string
}

// Installed lists the installed skills then plugins, each sorted by name.
// A directory that does not exist holds nothing.
func (c *Client) Installed() ([]InstalledEntry, error) {
	var out []InstalledEntry
	for _, kind := range []Kind{KindSkill, KindPlugin} {
		dir, ext := c.SkillsDir(), ".md"
		if kind == KindPlugin {
			dir, ext = c.PluginsDir(), ".json"
		}
		entries, err := os.ReadDir(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("listing %s: %w", dir, err)
		}
		var ofKind []InstalledEntry
		for _, de := range entries {
			name, ok := strings.CutSuffix(de.Name(), ext)
			if !ok || strings.HasPrefix(de.Name(), ".") || de.IsDir() {
				continue
			}
			ofKind = append(ofKind, describeInstalled(kind, name, filepath.Join(dir, de.Name())))
		}
		slices.SortFunc(ofKind, func(a, b InstalledEntry) int { return strings.Compare(a.Name, b.Name) })
		out = append(out, ofKind...)
	}
	return out, nil
}

// WriteInstalled writes what Installed lists as a table for people (with
// each entry's path when withPath), or says that nothing is installed.
func (c *Client) WriteInstalled(w io.Writer, withPath bool) error {
	list, err := c.Installed()
	if err != nil {
		return err
	}
	if len(list) == 0 {
		_, err := fmt.Fprintf(w, "nothing is installed from the registry (%s, %s)\n", c.SkillsDir(), c.PluginsDir())
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := "KIND\tNAME\tSIGNER\tDESCRIPTION"
	if withPath {
		head += "\tPATH"
	}
	fmt.Fprintln(tw, head)
	for _, e := range list {
		desc := e.Description
		if e.Problem != "" {
			desc = "NOT LOADING: " + e.Problem
		}
		line := fmt.Sprintf("%s\t%s\t%s\t%s", e.Kind, e.Name, cmp.Or(e.Signer, "-"), desc)
		if withPath {
			line += "\t" + e.Path
		}
		fmt.Fprintln(tw, line)
	}
	return tw.Flush()
}

func describeInstalled(kind Kind, name, path string) InstalledEntry {
	e := InstalledEntry{Kind: kind, Name: name, Path: path}
	data, err := readSmall(path)
	if err != nil {
		e.Problem = err.Error()
		return e
	}
	if kind == KindSkill {
		s, err := skills.Parse(data)
		switch {
		case err != nil:
			e.Problem = err.Error()
		case s.Name != name:
			e.Problem = fmt.Sprintf("its name %q does not match the file name", s.Name)
		}
		e.Description = s.Description
		return e
	}
	m, err := plugin.ParseManifest(path, data)
	switch {
	case err != nil:
		e.Problem = err.Error()
	case m.Name != name:
		e.Problem = fmt.Sprintf("its name %q does not match the file name", m.Name)
	}
	e.Description, e.Signer = m.Description, m.Signer
	return e
}

// readSmall reads a regular file of at most skills.MaxFileBytes.
func readSmall(path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, skills.MaxFileBytes+1))
}
