package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// SandboxGrant is what the person allowed the sandbox for one project
// when it refused a command (answering "project" to the offer): folders
// commands may write, and the network.
//
// Grants are kept in the user's state folder (Paths.SandboxGrants),
// keyed by the project's resolved root, not in the project's
// .shiro/config.json: a project's config is untrusted (a cloned
// repository could widen its own sandbox) and commands may write the
// workspace. The state folder is the user's alone, commands can neither
// write nor read it, and keeping grants out of config.json means shiro
// never rewrites the file the person edits by hand.
type SandboxGrant struct {
	Writable []string `json:"writable,omitempty"`
	Network  bool     `json:"network,omitempty"`
}

// sandboxGrants is the file: grants by project root.
type sandboxGrants struct {
	Projects map[string]SandboxGrant `json:"projects"`
}

// SandboxGrants is the file of the sandbox grants made for projects.
func (p Paths) SandboxGrants() string { return filepath.Join(p.State(), "sandbox-grants.json") }

func readSandboxGrants(path string) (sandboxGrants, error) {
	var g sandboxGrants
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return g, nil
	}
	if err != nil {
		return g, fmt.Errorf("reading %s: %w", path, err)
	}
	if err := json.Unmarshal(data, &g); err != nil {
		return g, fmt.Errorf("%s: %s; fix it or remove the file (it holds only the sandbox grants made for projects)", path, describeJSONError(data, err))
	}
	return g, nil
}

// ProjectSandboxGrant is what was granted for the project at root (a
// resolved path); the zero grant when nothing was.
func ProjectSandboxGrant(path, root string) (SandboxGrant, error) {
	g, err := readSandboxGrants(path)
	if err != nil {
		return SandboxGrant{}, err
	}
	return g.Projects[root], nil
}

// AddProjectSandboxGrant adds add to the project's grant and writes the
// file atomically.
func AddProjectSandboxGrant(path, root string, add SandboxGrant) error {
	g, err := readSandboxGrants(path)
	if err != nil {
		return err
	}
	if g.Projects == nil {
		g.Projects = map[string]SandboxGrant{}
	}
	cur := g.Projects[root]
	for _, w := range add.Writable {
		if !slices.Contains(cur.Writable, w) {
			cur.Writable = append(cur.Writable, w)
		}
	}
	cur.Network = cur.Network || add.Network
	g.Projects[root] = cur
	data, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteAtomic(path, append(data, '\n'), 0o600, fsutil.Options{MakeParents: true, SyncDir: true})
}
