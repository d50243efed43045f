package checkpoint

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/shiro-neko/shiro/internal/fsutil"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// git runs git against the private repository with the workspace as its
// work tree. Every variable of the GIT_ family the person's shell set is
// dropped first: a GIT_DIR or GIT_INDEX_FILE left in the environment would
// point a command at the person's own repository. System and global
// configuration are not read either, so a hook path, an fsmonitor or a
// clean filter of theirs never runs for a checkpoint.
//
// This git runs outside the sandbox (it writes shiro's own state, which
// the sandbox keeps commands from writing), so it must run nothing the
// workspace can name. What the workspace controls is the work tree,
// .gitattributes included: attributes only name drivers, and the one
// config that could define them is the private repository's, in shiro's
// state folder. Even so, hooks and fsmonitor are turned off on the
// command line (which outranks that config), and info/attributes unsets
// every attribute that converts content (pinAttributes), so a driver
// planted there has nothing to run it either.
type git struct {
	dir  string // the private bare repository
	root string // the workspace
	env  []string
}

func newGit(dir, root string) git {
	var env []string
	for _, kv := range workspace.CommandEnv(os.Environ()) {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"GIT_DIR="+dir,
		"GIT_WORK_TREE="+root,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_ATTR_NOSYSTEM=1",
		// Command-line config, which no config file overrides.
		"GIT_CONFIG_COUNT=4",
		"GIT_CONFIG_KEY_0=core.hooksPath", "GIT_CONFIG_VALUE_0="+os.DevNull,
		"GIT_CONFIG_KEY_1=core.fsmonitor", "GIT_CONFIG_VALUE_1=false",
		"GIT_CONFIG_KEY_2=core.attributesFile", "GIT_CONFIG_VALUE_2="+os.DevNull,
		// The index holds every file of the workspace, node_modules too:
		// split, a change rewrites the few entries changed, not all.
		"GIT_CONFIG_KEY_3=core.splitIndex", "GIT_CONFIG_VALUE_3=true",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_OPTIONAL_LOCKS=0",
	)
	return git{dir: dir, root: root, env: env}
}

// run runs one git command; index, when set, is the index file it uses.
// stdin is fed to it when not nil. It returns standard output.
func (g git) run(ctx context.Context, index string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.root
	cmd.Env = g.env
	if index != "" {
		cmd.Env = append(cmd.Env[:len(cmd.Env):len(cmd.Env)], "GIT_INDEX_FILE="+index)
	}
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errb.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("checkpoint: git %s: %s", args[0], msg)
	}
	return out.Bytes(), nil
}

// init creates the private repository. It runs without GIT_WORK_TREE,
// which git refuses for a bare repository being created.
func (g git) init(ctx context.Context) error {
	cmd := exec.CommandContext(ctx, "git", "init", "-q", "--bare", g.dir)
	for _, kv := range g.env {
		if !strings.HasPrefix(kv, "GIT_WORK_TREE=") && !strings.HasPrefix(kv, "GIT_DIR=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("checkpoint: creating the repository %s: %s", g.dir, cmp.Or(strings.TrimSpace(string(out)), err.Error()))
	}
	return nil
}

// pinnedAttributes unsets, for every path, the attributes that make git
// run a driver or convert content. info/attributes outranks every
// .gitattributes of the work tree, so a checkpoint stores the workspace's
// bytes as they are, which is also what restoring (cat-file, no filters)
// writes back.
const pinnedAttributes = "# written by shiro: checkpoints store the workspace's bytes as they are\n" +
	"* -filter -diff -merge -text -eol -crlf -ident -working-tree-encoding\n"

// pinAttributes writes pinnedAttributes to the private repository's
// info/attributes unless it holds them already.
func (g git) pinAttributes() error {
	path := filepath.Join(g.dir, "info", "attributes")
	if old, err := os.ReadFile(path); err == nil && string(old) == pinnedAttributes {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	if err := fsutil.WriteFileAtomic(path, []byte(pinnedAttributes), 0o600); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

// nulFields splits git's -z output into its records.
func nulFields(b []byte) []string {
	b = bytes.TrimSuffix(b, []byte{0})
	if len(b) == 0 {
		return nil
	}
	return strings.Split(string(b), "\x00")
}
