package bash

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/sandbox"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

// TestMain lets this test binary be the sandbox's helper: the sandbox
// re-executes the running program to confine each command.
func TestMain(m *testing.M) {
	sandbox.MaybeRunHelper()
	if os.Getenv(printArgsVar) != "" {
		printArgs()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The secret values of secretRepo, by where they live.
var repoSecrets = map[string]string{
	"env-v1":        "sk-live-0123456789abcdef",
	"env-v1-pw":     "hunter2-secret-pw",
	"env-v2":        "sk-live-second-version-99",
	"key-body":      "MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfnK",
	"stash-only":    "stash-only-Secr3tValue",
	"reflog-only":   "amended-away-V4lue",
	"index-only":    "staged-only-V4lue",
	"upstream-only": "fetched-later-V4lue",
}

// secretFixture is a repository whose secrets live only in git: a .env
// committed, changed and removed (and ignored since); an SSH key still
// committed; a secrets.yaml only in a stash's untracked part; a prod.env
// in a commit reset away (only the reflog has it); a staging.env only in
// the index. upstream/ is a repository of its own, inside the workspace,
// whose .env is in its history only: the workspace's repository learns of
// it only by fetching.
type secretFixture struct {
	env   *workspace.Env
	first string // the commit that added .env
	blob  string // .env's blob in it
}

func newSecretFixture(t *testing.T) *secretFixture {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	gitEnv := wstest.CleanEnviron(t, "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	git := func(at string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = at, gitEnv
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		return strings.TrimSpace(string(out))
	}
	put := func(name, content string) {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s := repoSecrets
	put("app.go", "package main\n\nfunc main() {}\n")
	put(".env", "API_TOKEN="+s["env-v1"]+"\nDB_PASSWORD=\""+s["env-v1-pw"]+"\"\nNODE_ENV=production\n")
	put("deploy/id_rsa", "-----BEGIN RSA PRIVATE KEY-----\n"+s["key-body"]+"\n-----END RSA PRIVATE KEY-----\n")
	git(dir, "init", "-q", "-b", "main")
	git(dir, "add", "-A")
	git(dir, "commit", "-qm", "first")
	f := &secretFixture{first: git(dir, "rev-parse", "HEAD"), blob: git(dir, "rev-parse", "HEAD:.env")}
	put(".env", "API_TOKEN="+s["env-v2"]+"\n")
	put("app.go", "package main\n\nfunc main() { println(\"second\") }\n")
	git(dir, "commit", "-qam", "second")
	put(".gitignore", ".env\nupstream/\n")
	git(dir, "rm", "-q", ".env")
	git(dir, "add", ".gitignore")
	git(dir, "commit", "-qm", "drop .env")
	put("config/secrets.yaml", "api_key: "+s["stash-only"]+"\n")
	git(dir, "stash", "-q", "-u")
	put("prod.env", "PROD="+s["reflog-only"]+"\n")
	git(dir, "add", "prod.env")
	git(dir, "commit", "-qm", "oops")
	git(dir, "reset", "-q", "--hard", "HEAD~1")
	put("staging.env", "STAGED="+s["index-only"]+"\n")
	git(dir, "add", "staging.env")
	if err := os.Remove(filepath.Join(dir, "staging.env")); err != nil {
		t.Fatal(err)
	}
	up := filepath.Join(dir, "upstream")
	put("upstream/.env", "UP="+s["upstream-only"]+"\n")
	git(up, "init", "-q", "-b", "main")
	git(up, "add", "-A")
	git(up, "commit", "-qm", "up")
	git(up, "rm", "-q", ".env")
	git(up, "commit", "-qm", "up gone")

	env, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	env.ShellEnv = gitEnv
	mode := sandbox.WorkspaceWrite
	if ok, _ := sandbox.Available(); !ok {
		mode = sandbox.Off // supervision alone
	}
	sb, err := sandbox.New(sandbox.Policy{Mode: mode, Workspace: env.Root, Home: t.TempDir(), Temp: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	// The sandbox keeps a helper ready for the next command, which makes
	// .git/hooks while it sets up; Close does not wait for it, and the
	// temp dir could not be removed behind it.
	t.Cleanup(func() { sb.Ready(); sb.Close() })
	env.Launcher = sb
	f.env = env
	return f
}

// leaked returns the secret values found in text.
func leaked(text string) []string {
	var out []string
	for where, v := range repoSecrets {
		if strings.Contains(text, v) {
			out = append(out, where+"="+v)
		}
	}
	return out
}

// encodedRuns returns, for output that is one encoded stream (base64 in
// either alphabet, or hex), the runs of it that come from a secret value's
// bytes alone: what the model could decode a secret from.
func encodedRuns(raw string) []string {
	enc := strings.TrimSpace(raw)
	type decoding struct {
		data     []byte
		from, to func(off int) int
	}
	var ds []decoding
	b64From := func(off int) int { return (off*8 + 5) / 6 }
	b64To := func(end int) int { return end * 8 / 6 }
	for _, e := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		if d, err := e.DecodeString(enc); err == nil {
			ds = append(ds, decoding{d, b64From, b64To})
		}
	}
	if d, err := hex.DecodeString(enc); err == nil {
		ds = append(ds, decoding{d, func(off int) int { return 2 * off }, func(end int) int { return 2 * end }})
	}
	var runs []string
	for _, d := range ds {
		for _, v := range repoSecrets {
			for at := 0; ; {
				i := strings.Index(string(d.data[at:]), v)
				if i < 0 {
					break
				}
				off := at + i
				runs = append(runs, enc[d.from(off):d.to(off+len(v))])
				at = off + 1
			}
		}
	}
	return runs
}

// unconfined runs a command as a person would, without shiro, to show
// that it does print a secret.
func unconfined(t *testing.T, env *workspace.Env, command string) string {
	t.Helper()
	cmd := exec.Command("bash", "--norc", "-c", command)
	cmd.Dir, cmd.Env = env.Root, env.ShellEnv
	out, _ := cmd.CombinedOutput()
	return string(out)
}

// Every way git can print a secret file's history, run through the bash
// tool with a real workspace and sandbox: each prints a secret when run
// directly, and none does in the result the model gets.
func TestBashWithholdsSecretsFromGitHistory(t *testing.T) {
	f := newSecretFixture(t)
	bashT := tooltest.Named(t, Tools(f.env, nil), "bash")
	commands := []string{
		"git log -p --all",
		"git log -p --all --reflog",
		"git log -p -m --all --full-history",
		"git log -p -g",
		"git log -p --all -a --no-textconv",
		"git log -p --all --text --binary",
		"git log --all --format=%H | xargs -n1 git show --format=",
		"git diff " + f.first + " HEAD",
		"git diff " + f.first + "..HEAD~1 -- .env",
		"git show " + f.first,
		"git show " + f.first + ":.env",
		"git show HEAD@{1}:prod.env",
		"git show :staging.env",
		"git cat-file -p " + f.blob,
		"git cat-file --textconv " + f.first + ":.env",
		"git cat-file --batch-all-objects --batch",
		"git grep -h -e TOKEN -e PASSWORD -e api_key -e PROD $(git rev-list --all --reflog)",
		"git format-patch --stdout --root HEAD",
		"git stash show -p --include-untracked",
		"git archive " + f.first + " | tar -xO",
		"git log -p --all | base64 -w0",
		"git show " + f.first + ":.env | base64 -w0 | tr '+/' '-_'",
		"git show " + f.first + ":.env | od -An -v -tx1 | tr -d ' \\n'",
		"cat .env deploy/id_rsa; grep -r . .env",
		"git fetch -q ./upstream main:refs/remotes/up/main && git log -p up/main",
	}
	for _, c := range commands {
		t.Run(c, func(t *testing.T) {
			if strings.Contains(c, "upstream") {
				// Fetching changes the repository: each run from a fresh one.
				f = newSecretFixture(t)
				bashT = tooltest.Named(t, Tools(f.env, nil), "bash")
			}
			raw := unconfined(t, f.env, c)
			runs := encodedRuns(raw)
			if len(leaked(raw)) == 0 && len(runs) == 0 && !strings.Contains(c, "fetch") {
				t.Fatalf("the command prints no secret even unconfined, so it proves nothing:\n%s", raw)
			}
			live := newChunkWaiter()
			out, err := invoke(context.Background(), bashT, tooltest.Input(t, map[string]any{"command": c}), live.emit)
			if err != nil {
				t.Fatal(err)
			}
			if l := leaked(out); len(l) > 0 {
				t.Errorf("the result shows %v:\n%s", l, out)
			}
			for _, r := range runs {
				if strings.Contains(out, r) {
					t.Errorf("the result shows the encoded secret %q:\n%s", r, out)
				}
			}
			if l := leaked(live.String()); len(l) > 0 {
				t.Errorf("the live output shows %v", l)
			}
			if !strings.Contains(out, "[secret withheld: ") {
				t.Errorf("no secret was withheld, so the command printed none:\n%s", out)
			}
		})
	}
}

// A fetch that names no ref (only FETCH_HEAD) brings a secret the
// repository did not have; printing it in the same command is caught.
func TestBashWithholdsASecretFetchedByTheCommand(t *testing.T) {
	f := newSecretFixture(t)
	out, err := runTool(t, tooltest.Named(t, Tools(f.env, nil), "bash"), map[string]any{
		"command": "git fetch -q ./upstream main && git log -p FETCH_HEAD"})
	if err != nil {
		t.Fatal(err)
	}
	if l := leaked(out); len(l) > 0 || !strings.Contains(out, "[secret withheld: .env (git history)]") {
		t.Fatalf("leaked %v:\n%s", l, out)
	}
}

// Ordinary history still reads as before: only secret values go.
func TestBashShowsOrdinaryHistory(t *testing.T) {
	f := newSecretFixture(t)
	out, err := runTool(t, tooltest.Named(t, Tools(f.env, nil), "bash"), map[string]any{"command": "git log -p -- app.go"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-func main() {}", `+func main() { println("second") }`, "exit: 0"} {
		if !strings.Contains(out, want) {
			t.Errorf("git log -p lost %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "withheld") {
		t.Errorf("nothing secret was printed, yet something was withheld:\n%s", out)
	}
}

// Background commands and run_checks go through the same redaction.
func TestBackgroundAndChecksWithholdSecrets(t *testing.T) {
	f := newSecretFixture(t)
	const command = "git log -p --all --reflog; git stash show -p --include-untracked"
	bg := NewBackground("", f.env, Hooks{})
	t.Cleanup(func() { _ = bg.StopAll(context.Background()) })
	live := newChunkWaiter()
	bg.output = func(_, chunk string) { live.emit(chunk) }
	j, err := bg.start(nil, command, "history")
	if err != nil {
		t.Fatal(err)
	}
	<-j.done
	status, err := bg.status(j.handle)
	if err != nil {
		t.Fatal(err)
	}
	if l := leaked(status + live.String()); len(l) > 0 || !strings.Contains(status, "[secret withheld: ") {
		t.Errorf("bash_status shows %v:\n%s", l, status)
	}

	res, err := runCheck(context.Background(), f.env, defaultKillTiming(), check{command: command}, testDeadline, live.emit)
	if err != nil {
		t.Fatal(err)
	}
	report := strings.Join(res.head, "\n")
	if l := leaked(report + live.String()); len(l) > 0 || !strings.Contains(report, "[secret withheld: ") {
		t.Errorf("run_checks shows %v:\n%s", l, report)
	}
}

// A background command that commits (so the secrets are worked out again
// while it runs) and then prints a secret from history and waits: its
// output is held only until the new secrets are known, then reaches
// bash_status redacted, with the command still running.
func TestBackgroundOutputAfterACommitIsReleasedRedacted(t *testing.T) {
	f := newSecretFixture(t)
	bg := NewBackground("", f.env, Hooks{})
	t.Cleanup(func() { _ = bg.StopAll(context.Background()) })
	live := newChunkWaiter()
	bg.output = func(_, chunk string) { live.emit(chunk) }
	j, err := bg.start(nil, "git commit -q --allow-empty -m again && git show "+f.first+":.env && echo printed && exec sleep 300", "commit")
	if err != nil {
		t.Fatal(err)
	}
	live.waitFor(t, "printed\n")
	status, err := bg.status(j.handle)
	if err != nil {
		t.Fatal(err)
	}
	if l := leaked(status + live.String()); len(l) > 0 || !strings.Contains(status, "API_TOKEN=[secret withheld: .env (git history)]") {
		t.Errorf("bash_status shows %v:\n%s", l, status)
	}
	if !j.running() {
		t.Errorf("the command ended; the output should have come while it ran")
	}
}
