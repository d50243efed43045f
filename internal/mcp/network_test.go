package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

// The person's own stdio servers get the network, inside the sandbox; a
// project's, even approved, run as commands do, without it (issue 28 §3),
// and the one that fails to start for it says so: the sandbox's line on
// the network, its own stderr, and how to give a server the network.
// The "API" is a loopback listener; what it received is what crossed.
func TestOnlyThePersonsOwnServersGetTheNetwork(t *testing.T) {
	if ok, why := sandbox.Available(); !ok {
		t.Skip(why)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	greetings := make(chan string, 4)
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(conn).ReadString('\n')
			greetings <- strings.TrimSpace(line)
			_ = conn.Close()
		}
	}()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	def, _ := json.Marshal(map[string]any{"command": exe, "args": []string{"-test.run=^$"}, "env": map[string]string{
		"SHIRO_MCP_TEST_SERVER": "dial", "SHIRO_MCP_TEST_DIAL": ln.Addr().String(), "GORACE": "atexit_sleep_ms=0",
	}})
	ds := append(defs(t, OriginUser, map[string]string{"mine": string(def)}), defs(t, OriginProject, map[string]string{"proj": string(def)})...)
	var sb *sandbox.Sandbox
	f := newFixture(t, ds, func(o *Options) {
		// Temp is a folder of the test's: the private one mounted in its
		// place would hide this test binary in /tmp.
		sb, err = sandbox.New(sandbox.Policy{Mode: sandbox.WorkspaceWrite, Workspace: o.Root, Home: t.TempDir(), Temp: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		o.Launcher, o.NetLauncher = sb, sb.Networked()
	})
	t.Cleanup(sb.Close)
	if err := f.m.Approve("proj", ds[1].Digest); err != nil {
		t.Fatal(err)
	}
	f.m.Start(context.Background())

	if st := f.status("mine"); st.State != StateReady {
		t.Fatalf("the person's own server did not start: %+v", st)
	}
	if got := <-greetings; got != "hello from the server" {
		t.Errorf("the API received %q", got)
	}
	st := f.status("proj")
	if st.State == StateReady {
		t.Fatalf("the project's server reached the network: %+v", st)
	}
	t.Logf("the project's server: %s", st.Error)
	for _, want := range []string{
		"MCP server proj did not start: exited before it answered (exit status 1)",
		"the network may have been denied",
		"a project's servers do even when approved",
		"`shiro mcp add`",
		"its stderr ends: cannot reach the API: dial tcp " + ln.Addr().String(),
	} {
		if !strings.Contains(st.Error, want) {
			t.Errorf("the failure does not say %q:\n%s", want, st.Error)
		}
	}
	// The log says what was started and how, and why it failed: not only
	// "starting".
	for name, want := range map[string][]string{
		"mine": {"starting " + exe + " -test.run=^$ over stdio from test.json, in the sandbox (network on: your own server)"},
		"proj": {"(network off, as for commands: a project's server)", "MCP server proj did not start: exited before it answered"},
	} {
		data, err := os.ReadFile(f.status(name).Log)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range want {
			if !strings.Contains(string(data), w) {
				t.Errorf("%s's log does not say %q:\n%s", name, w, data)
			}
		}
	}
	select {
	case got := <-greetings:
		t.Errorf("the API heard from a server without the network: %q", got)
	default:
	}
}

// direct launches a command as it is: the seam, without a sandbox.
type direct struct{}

func (direct) Launch(x proc.Exec) (proc.Exec, error) { return x, nil }

// A server with the network gets no secret its definition does not name:
// env.passthrough hands NPM_TOKEN to commands, which cannot send it
// anywhere, not to the person's own servers, which can; the definition
// naming it (${NPM_TOKEN}) still does.
func TestANetworkedServerGetsOnlyTheSecretsItNames(t *testing.T) {
	t.Setenv("NPM_TOKEN", "npm_passed")
	t.Setenv("HF_TOKEN", "hf_passed")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	envFile := filepath.Join(t.TempDir(), "env")
	def, _ := json.Marshal(map[string]any{"command": exe, "args": []string{"-test.run=^$"}, "env": map[string]string{
		"SHIRO_MCP_TEST_SERVER": "serve", "GORACE": "atexit_sleep_ms=0", "SHIRO_MCP_TEST_ENVFILE": envFile,
		"HF_TOKEN": "${HF_TOKEN}",
	}})
	ds := defs(t, OriginUser, map[string]string{"mine": string(def)})
	f := newFixture(t, ds, func(o *Options) {
		o.Passthrough = []string{"NPM_TOKEN", "HF_TOKEN"}
		o.Launcher, o.NetLauncher = direct{}, direct{}
	})
	f.m.Start(context.Background())
	if st := f.status("mine"); st.State != StateReady {
		t.Fatalf("status = %+v", st)
	}
	data, err := os.ReadFile(envFile)
	if err != nil {
		t.Fatal(err)
	}
	env := "\n" + string(data) + "\n"
	if strings.Contains(env, "\nNPM_TOKEN=") {
		t.Error("the networked server received NPM_TOKEN, which only env.passthrough named")
	}
	if !strings.Contains(env, "\nHF_TOKEN=hf_passed\n") {
		t.Error("the networked server did not receive HF_TOKEN, which its definition names")
	}
}
