package plugin_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/plugin"
	"github.com/shiro-neko/shiro/internal/tool"
)

func writeCall(path string) plugin.Call {
	return plugin.Call{Tool: "write_file", Mutating: true, Writes: []string{path}}
}

func TestSecrets(t *testing.T) {
	p := plugin.Secrets()
	for _, path := range []string{
		".env", ".env.local", "app/.ENV.production", ".envrc", ".env.", "a/../.env", "./.env", `web\.env`,
		"config/credentials.json", "secrets.yaml", "deploy/secret.toml", "credentials.ini",
		"certs/server.pem", "tls.key", "store.jks", "x.p12", "cert.pfx", "release.keystore",
		"id_rsa", "keys/id_ed25519", "id_ecdsa_sk",
		".npmrc", "home/.netrc", ".pgpass", ".pypirc",
		".aws/credentials", ".ssh/config", "/home/u/.ssh/authorized_keys", ".gnupg/gpg.conf",
	} {
		reason := check(t, p, writeCall(path))
		if reason == "" {
			t.Errorf("secrets let %q be written", path)
			continue
		}
		if !strings.HasPrefix(reason, "Blocked by the secrets plugin: refusing to write ") || !strings.Contains(reason, "Ask the user") {
			t.Errorf("refusal for %q reads %q", path, reason)
		}
	}
	for _, path := range []string{".env.example", "src/environment.ts", "id_rsa.pub", "docs/secrets.md", "keyboard.go",
		"credentials.go", "README.md", "src/ssh/client.go", "monkey.json"} {
		if reason := check(t, p, writeCall(path)); reason != "" {
			t.Errorf("secrets refused %q: %s", path, reason)
		}
	}
}

func TestProtect(t *testing.T) {
	state := t.TempDir()
	p := plugin.Protect(state)
	for _, path := range []string{
		".git/config", ".git", "sub/.git/hooks/pre-commit", ".GIT/HEAD",
		"package-lock.json", "web/yarn.lock", "go.sum", "Cargo.lock", "bun.lockb", "pnpm-lock.yaml", "poetry.lock",
		"uv.lock", "composer.lock", "Gemfile.lock", "bun.lock",
		"node_modules/x/index.js", "vendor/github.com/x/y.go", "target/debug/app", "crates/a/target/release/x",
		"dist/app.js", "build/out.js", "packages/a/dist/x.js", ".next/cache/x", ".nuxt/x", ".svelte-kit/x",
		"out/index.html", "coverage/lcov.info", "__pycache__/a.pyc", ".pytest_cache/v", ".mypy_cache/x",
		".shiro/hooks/fmt/run", "home/.shiro-neko/config.json", filepath.Join(state, "config.json"), state,
	} {
		reason := check(t, p, writeCall(path))
		if reason == "" {
			t.Errorf("protect let %q be written", path)
			continue
		}
		if !strings.HasPrefix(reason, "Blocked by the protect plugin: refusing to write ") {
			t.Errorf("refusal for %q reads %q", path, reason)
		}
	}
	for _, path := range []string{"src/build.go", "build", "internal/target/x.go", "target/doc.md", "docs/out.md",
		".shiro/config.json", ".shiro/skills/x.md", ".gitignore", ".github/workflows/ci.yml", "src/main.go", "distance/x.go",
		"go.mod", "package.json", "Cargo.toml"} {
		if reason := check(t, p, writeCall(path)); reason != "" {
			t.Errorf("protect refused %q: %s", path, reason)
		}
	}
}

// A relative write is judged relative to the workspace, so a workspace
// that itself lives under build/ or vendor/ is not frozen.
func TestProtectJudgesPathsWithinTheWorkspace(t *testing.T) {
	cwd := filepath.Join(t.TempDir(), "build", "proj")
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	c := writeCall("src/main.go")
	c.Cwd = cwd
	if reason := check(t, plugin.Protect(""), c); reason != "" {
		t.Fatalf("refused a normal write in a workspace under build/: %s", reason)
	}
	c.Writes = []string{filepath.Join(cwd, "src", "main.go")}
	if reason := check(t, plugin.Protect(""), c); reason != "" {
		t.Fatalf("refused an absolute normal write: %s", reason)
	}
	c.Writes = []string{filepath.Join(cwd, "dist", "x.js")}
	if reason := check(t, plugin.Protect(""), c); reason == "" {
		t.Fatal("absolute write into the workspace's dist/ passed")
	}
}

// A symlink cannot launder a write: the resolved path is judged too.
func TestPathPluginsFollowSymlinks(t *testing.T) {
	cwd := t.TempDir()
	state := t.TempDir()
	must(t, os.Symlink(".env", filepath.Join(cwd, "notes.txt"))) // dangling until written
	must(t, os.Mkdir(filepath.Join(cwd, ".ssh"), 0o700))
	must(t, os.Symlink(".ssh", filepath.Join(cwd, "cfg")))
	must(t, os.Symlink(state, filepath.Join(cwd, "st")))
	must(t, os.Symlink("node_modules/pkg", filepath.Join(cwd, "lib")))
	for _, tc := range []struct {
		p    plugin.Plugin
		path string
	}{
		{plugin.Secrets(), "notes.txt"},
		{plugin.Secrets(), "cfg/config"},
		{plugin.Protect(state), "st/config.json"},
		{plugin.Protect(""), "lib/index.js"},
	} {
		c := writeCall(tc.path)
		c.Cwd = cwd
		if reason := check(t, tc.p, c); reason == "" {
			t.Errorf("%s let %q through a symlink", tc.p.Name, tc.path)
		}
		bash := bashCall("echo x > " + tc.path)
		bash.Cwd = cwd
		if reason := check(t, tc.p, bash); reason == "" {
			t.Errorf("%s let bash write %q through a symlink", tc.p.Name, tc.path)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestPathPluginsSeeShellWrites(t *testing.T) {
	cwd := t.TempDir()
	must(t, os.Mkdir(filepath.Join(cwd, "backup"), 0o755))
	cases := []struct {
		p       plugin.Plugin
		block   []string
		pass    []string
		comment string
	}{
		{
			p: plugin.Secrets(),
			block: []string{
				"echo API=1 > .env", "cat a >> config/.env.local", "printf x | tee -a .env", "cp .env.example .env",
				"mv key.pem .ssh/", "cp id -t ~/.ssh", "sed -i s/a/b/ .env", "sed -i.bak -e s/a/b/ .env", "perl -pi -e 's/a/b/' .npmrc",
				"dd if=x of=server.key", "curl -sSLo .npmrc https://x", "wget -O .pypirc https://x",
				"bash -c 'echo x > .env'", "sudo tee /root/.ssh/authorized_keys", `echo x >"$HOME/.ssh/authorized_keys"`,
				"eval 'echo x > .env'", "touch .env", "rm .env", "ln -s /tmp/x .env", "cp .env.example backup/.env",
				"cp .env backup", "git show HEAD:.env > .env.prod", "echo x &> secrets.json", "echo x >| .env",
				"su -c 'echo x > .env' bob", "cd app && echo x > .env", "$(echo echo) x > .env", "sh -lc 'cat > .env'",
				// Reading a secret file through the shell would put it in the conversation.
				"cat .env", "grep KEY .env", "diff .env.example .env", "sed -n 1p .env",
			},
			pass: []string{"ls -la ~/.ssh", "echo hi > notes.txt", "cat .env.example",
				"git status", "cp .env.example docs/", "echo x 2>&1", "echo x >&2", "cmd > /dev/null",
				"chmod 600 notes.txt", "curl -O https://x/.env"},
		},
		{
			p: plugin.Protect(""),
			block: []string{"echo x >> go.sum", "rm package-lock.json", "cp x.js node_modules/y/", "echo > .git/HEAD",
				"mv a .git/hooks/pre-commit", "sed -i s/a/b/ yarn.lock", "touch dist/x", "truncate -s 0 Cargo.lock",
				"bash -c 'echo x > .git/config'", "rm node_modules/y/index.js", "rm .git/index", "rmdir .git/refs/tags"},
			// A new directory changes nothing that exists, and a file removed
			// from build output comes back with the build (issue 22).
			pass: []string{"npm install", "go mod tidy", "go build -o bin/app ./...", "git commit -m x", "cat go.sum",
				"rm build.log", "echo x > src/build.go", "rm -f tmp.txt", "mkdir -p out/reports", "mkdir -p node_modules/x",
				"rm build/one-file.js", "rm dist/app.js .cache/x"},
		},
	}
	for _, tc := range cases {
		for _, cmd := range tc.block {
			c := bashCall(cmd)
			c.Cwd = cwd
			if reason := check(t, tc.p, c); reason == "" {
				t.Errorf("%s let %q through", tc.p.Name, cmd)
			}
		}
		for _, cmd := range tc.pass {
			c := bashCall(cmd)
			c.Cwd = cwd
			if reason := check(t, tc.p, c); reason != "" {
				t.Errorf("%s refused %q: %s", tc.p.Name, cmd, reason)
			}
		}
	}
}

func TestConfirmDelete(t *testing.T) {
	p := plugin.ConfirmDelete()
	del := func(path string) plugin.Call {
		input, _ := json.Marshal(map[string]string{"path": path})
		return plugin.Call{Tool: "delete_file", Input: input, Mutating: true, Writes: []string{path}}
	}
	for _, path := range []string{"", " ", ".", "./", "src/", `src\`, "*.go", "src/**/x.go", "a?.txt", "a/..", "/"} {
		reason := check(t, p, del(path))
		if reason == "" {
			t.Errorf("confirm-delete let delete_file %q through", path)
			continue
		}
		if !strings.Contains(reason, "Blocked by the confirm-delete plugin: refusing delete_file on ") {
			t.Errorf("refusal reads %q", reason)
		}
	}
	for _, path := range []string{"src/a.go", "app/[id]/page.tsx", "notes.txt", ".env.example"} {
		if reason := check(t, p, del(path)); reason != "" {
			t.Errorf("refused %q: %s", path, reason)
		}
	}
	// Keyed on what a tool says it writes, not on its name: a differently
	// named tool whose Plan writes a glob is refused, and a tool whose
	// glob is only its subject is not.
	env := workspaceEnv(t)
	remover := standIn("remove_paths", tool.Writes, "target", writesField)
	if reason := check(t, p, callOf(t, remover, `{"target":"src/*"}`, env.Root)); reason == "" {
		t.Error("a differently named delete tool passed with a glob")
	}
	glob := standIn("find_paths", tool.Reads, "pattern", subjectField)
	if reason := check(t, p, callOf(t, glob, `{"pattern":"**/*.go"}`, env.Root)); reason != "" {
		t.Errorf("a read-only glob was refused: %s", reason)
	}
}

// The plugins of one chain share what they learn about a call, but a new
// check looks at the file system again: a symlink made after an identical
// call was allowed is still seen.
func TestSharedTargetsAreNotReusedAcrossChecks(t *testing.T) {
	cwd := t.TempDir()
	enabled, _ := plugin.Resolve([]string{"secrets", "protect"}, plugin.BuiltinDeps{})
	host := plugin.NewHost(enabled...)
	c := writeCall("notes.txt")
	c.Cwd = cwd
	if b := host.Check(context.Background(), c); b != nil {
		t.Fatalf("blocked before the link existed: %s", b.Reason)
	}
	must(t, os.Symlink(".env", filepath.Join(cwd, "notes.txt")))
	if b := host.Check(context.Background(), c); b == nil || b.Plugin != "secrets" {
		t.Fatalf("the new symlink was missed: %+v", b)
	}
	must(t, os.Remove(filepath.Join(cwd, "notes.txt")))
	must(t, os.Symlink("go.sum", filepath.Join(cwd, "notes.txt")))
	if b := host.Check(context.Background(), c); b == nil || b.Plugin != "protect" {
		t.Fatalf("protect missed the relinked file: %+v", b)
	}
}

// A bare repository has no .git to recognise it by: its config (which
// can name programs git runs) and hooks lie at its top. It is known by
// its layout, as git knows it.
func TestProtectKnowsABareRepository(t *testing.T) {
	root := t.TempDir()
	bare := filepath.Join(root, "repo.git")
	plain := filepath.Join(root, "notes")
	for _, dir := range []string{filepath.Join(bare, "objects"), filepath.Join(bare, "refs", "heads"), filepath.Join(bare, "hooks"), plain} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for path, body := range map[string]string{filepath.Join(bare, "HEAD"): "ref: refs/heads/main\n", filepath.Join(bare, "config"): "[core]\n\tbare = true\n"} {
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := plugin.Protect("")
	inside := func(c plugin.Call, cwd string) plugin.Call { c.Cwd = cwd; return c }
	for _, c := range []plugin.Call{
		inside(writeCall("config"), bare),
		inside(writeCall("hooks/pre-commit"), bare),
		inside(writeCall("repo.git/config"), root),
		inside(bashCall("echo '[alias] x = !sh' >> config"), bare),
		inside(bashCall("cd repo.git && cp /tmp/x hooks/pre-receive"), root),
	} {
		reason := check(t, p, c)
		if !strings.Contains(reason, "bare git repository") {
			t.Errorf("protect let %q (in %s) through: %q", c.Commands, c.Cwd, reason)
		}
	}
	for _, c := range []plugin.Call{inside(writeCall("config"), plain), inside(writeCall("notes/hooks/x"), root)} {
		if reason := check(t, p, c); reason != "" {
			t.Errorf("protect refused a write outside any repository: %s", reason)
		}
	}
}
