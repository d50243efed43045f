package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/cli"
	"github.com/shiro-neko/shiro/internal/sandbox"
)

// everythingPackage is the reference MCP server the MCP docs start with
// npx, as people do.
const everythingPackage = "@modelcontextprotocol/server-everything"

// registryReachable says whether npm's registry answers here, and why
// not; only to decide whether the test can run at all.
func registryReachable(ctx context.Context) (bool, string) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, "https://registry.npmjs.org/"+strings.ReplaceAll(everythingPackage, "/", "%2f"), nil)
	if err != nil {
		return false, err.Error()
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return false, err.Error()
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return false, resp.Status
	}
	return true, ""
}

// The day-one check of issue 28: with the home directory outside the
// temp dir (npm's cache there) and the default sandbox, `shiro mcp add
// everything -- npx -y …` and then `shiro mcp list` show the server
// ready. Before, npx had no network (and no cache it could write), and
// the start timed out saying only "starting". It needs npx and npm's
// registry; without them it skips, saying which is missing.
func TestNpxServerIsReadyUnderTheDefaultSandbox(t *testing.T) {
	if ok, why := sandbox.Available(); !ok {
		t.Skip(why)
	}
	if _, err := exec.LookPath("npx"); err != nil {
		t.Skip("npx is not installed")
	}
	home, err := os.UserHomeDir()
	if err != nil || strings.HasPrefix(home, filepath.Clean(os.TempDir())+"/") {
		t.Skipf("the home directory (%q, %v) is not outside the temp dir", home, err)
	}
	if ok, why := registryReachable(t.Context()); !ok {
		t.Skipf("npm's registry is not reachable from here: %s", why)
	}
	shiroHome, ws := t.TempDir(), t.TempDir()
	// The first start downloads the server: give it longer than the
	// default 30 s, as the docs advise.
	config := filepath.Join(shiroHome, ".shiro-neko", "config.json")
	if err := os.MkdirAll(filepath.Dir(config), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(`{"mcp": {"startTimeoutMs": 600000}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) string {
		t.Helper()
		var out, errOut bytes.Buffer
		code := cli.Run(t.Context(), args, cli.IO{
			In: strings.NewReader(""), Out: &out, Err: &errOut,
			Getenv: func(k string) string {
				if k == "SHIRO_HOME" {
					return shiroHome
				}
				return os.Getenv(k)
			},
			Getwd: func() (string, error) { return ws, nil },
		})
		if code != 0 {
			t.Fatalf("shiro %s exited %d:\n%s%s", strings.Join(args, " "), code, out.String(), errOut.String())
		}
		return out.String()
	}
	run("mcp", "add", "everything", "--", "npx", "-y", everythingPackage)
	out := run("mcp", "list")
	if !regexp.MustCompile(`(?m)^everything +user +stdio +ready +[1-9]`).MatchString(out) {
		t.Errorf("the server is not ready with tools:\n%s\nits log:\n%s", out, readFile(filepath.Join(shiroHome, ".shiro-neko", "mcp", "logs", "everything.log")))
	}
}

func readFile(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	return string(data)
}
