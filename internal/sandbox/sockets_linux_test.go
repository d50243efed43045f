package sandbox_test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// unixServer serves "reached" over HTTP on a Unix socket at path, outside
// the sandbox, and counts the connections it accepted.
func unixServer(t *testing.T, path string) *atomic.Int32 {
	t.Helper()
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var accepted atomic.Int32
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = fmt.Fprint(w, "reached") }),
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				accepted.Add(1)
			}
		},
	}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return &accepted
}

func requireCurl(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("no curl here")
	}
}

func TestUnixSocketsOutsideTheWorkspaceAreRefused(t *testing.T) {
	t.Parallel()
	requireCurl(t)
	f := newFixture(t)
	sock := filepath.Join(f.outside, "agent.sock")
	accepted := unixServer(t, sock)
	connect := fmt.Sprintf(`curl -sS --unix-socket %q http://x/`, sock)

	for _, network := range []bool{false, true} {
		f.policy.Network = network
		out := f.mustFail(t, connect)
		if strings.Contains(out, "reached") {
			t.Errorf("network %v: the command reached the socket:\n%s", network, out)
		}
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the listener accepted %d connections from confined commands", n)
	}

	// Listed in sandbox.unixSockets (the user's own config), it is
	// reached.
	f.policy.Network = false
	f.policy.UnixSockets = []string{sock}
	if out := f.mustPass(t, connect); !strings.Contains(out, "reached") {
		t.Errorf("the listed socket was not reached:\n%s", out)
	}
}

func TestTmuxServerOutsideCannotBeDriven(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("no tmux here")
	}
	f := newFixture(t)
	sock := filepath.Join(f.outside, "tmux.sock")
	start := exec.Command("tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d", "sh")
	if out, err := start.CombinedOutput(); err != nil {
		t.Skipf("cannot start a tmux server here: %v: %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", sock, "kill-server").Run() })
	payload := filepath.Join(f.outside, "ran-outside")
	f.policy.Network = true // sockets are not "the network"
	f.mustFail(t, fmt.Sprintf(`tmux -S %q new-window -d 'touch %s'`, sock, payload))
	// The server, had it been reached, would have run the window by the
	// time it answered; wait for it to answer something of our own.
	if out, err := exec.Command("tmux", "-S", sock, "list-windows").CombinedOutput(); err != nil {
		t.Fatalf("tmux list-windows: %v: %s", err, out)
	} else if n := strings.Count(string(out), "\n"); n != 1 {
		t.Errorf("the confined command opened a window:\n%s", out)
	}
	if _, err := os.Lstat(payload); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the payload ran outside the sandbox (%v)", err)
	}
}
