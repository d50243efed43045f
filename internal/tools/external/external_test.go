package external

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/shiro-neko/shiro/internal/proc"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tool/tooltest"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// A bad manifest is reported with its file and the field at fault, and
// the good ones beside it still load.
func TestLoadReportsEachBadManifestAndKeepsTheRest(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"good.json":      `{"name":"weather","description":"Weather for a city","kind":"http","url":"https://wttr.in/{arg}?format=3"}`,
		"also-good.json": `{"name":"readme","description":"The readme","kind":"read","path":"README.md","autoApprove":false}`,
		"kind.json":      `{"name":"x1","description":"d","kind":"python","command":"x"}`,
		"name.json":      `{"name":"-bad","description":"d","kind":"shell","command":"true"}`,
		"long.json":      `{"name":"x2","description":"` + strings.Repeat("d", 301) + `","kind":"shell","command":"true"}`,
		"field.json":     `{"name":"x3","description":"d","kind":"shell","url":"https://a"}`,
		"scheme.json":    `{"name":"x4","description":"d","kind":"http","url":"http://example.com/"}`,
		"unknown.json":   `{"name":"x5","description":"d","kind":"read","path":"a","extra":1}`,
		"type.json":      `{"name":"x6","description":"d","kind":"read","path":7}`,
		"zz-dup.json":    `{"name":"Weather","description":"d","kind":"read","path":"a"}`,
		"notes.txt":      `not a manifest`,
	})
	ms, problems := Load(dir)
	var names []string
	for _, m := range ms {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, []string{"readme", "weather"}) || ms[0].File != filepath.Join(dir, "also-good.json") {
		t.Errorf("loaded %v, want readme and weather", names)
	}
	want := map[string]string{
		"kind.json":    `field "kind": "python" is not a kind`,
		"name.json":    `field "name": "-bad" must be`,
		"long.json":    `field "description": is over 300 characters`,
		"field.json":   `field "command": is required for a shell tool`,
		"scheme.json":  `field "url": "http://example.com/" must be an https:// address`,
		"unknown.json": `unknown field "extra"`,
		"type.json":    `field "path": want a string`,
		"zz-dup.json":  `field "name": "Weather" is also the name of`,
	}
	if len(problems) != len(want) {
		t.Errorf("%d problems, want %d: %v", len(problems), len(want), problems)
	}
	for _, p := range problems {
		w, ok := want[filepath.Base(p.Where)]
		if !ok || !strings.Contains(p.At(), w) || !strings.HasPrefix(p.At(), p.Where+": ") {
			t.Errorf("problem %q, want it to name the file and say %q", p.At(), w)
		}
	}
	if ms, problems := Load(filepath.Join(dir, "absent")); ms != nil || problems != nil {
		t.Errorf("a missing folder: %v %v", ms, problems)
	}
}

func call(t *testing.T, tl tool.Tool, arg string) (string, error) {
	t.Helper()
	raw, _ := json.Marshal(map[string]string{"arg": arg})
	res, err := tooltest.Invoke(t.Context(), tl, raw, tool.Runtime{CallID: "1"})
	return res.Output, err
}

func mustParse(t *testing.T, text string) Manifest {
	t.Helper()
	m, err := Parse([]byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestReadToolKeepsToTheWorkspace(t *testing.T) {
	t.Parallel()
	env := wstest.Env(t, map[string]string{"notes/a.md": "alpha\n"})
	tl := Tool(mustParse(t, `{"name":"note","description":"A note","kind":"read","path":"notes/{arg}"}`), Deps{Env: env})
	info := tl.Info()
	if info.Effect != tool.Reads || info.Set != tool.SetNone || info.Description != "A note (external read tool)" {
		t.Errorf("info %+v", info)
	}
	if out, err := call(t, tl, "a.md"); err != nil || out != "alpha\n" {
		t.Errorf("read a.md: %q %v", out, err)
	}
	outside := filepath.Join(filepath.Dir(env.Root), "outside.txt")
	if err := os.WriteFile(outside, []byte("outside"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := call(t, tl, "../../outside.txt"); err == nil || strings.Contains(out, "outside") {
		t.Errorf("read past the jail: %q %v", out, err)
	}
}

// The http kind talks to a real TLS server on loopback (the reference's
// https only; the test's client trusts the server's certificate).
func TestHTTPToolSendsTheEscapedArgument(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.RawQuery)
		mu.Unlock()
		if r.URL.Query().Get("q") == "missing" {
			http.Error(w, "no such thing", http.StatusNotFound)
			return
		}
		w.Write([]byte("answer for " + r.URL.Query().Get("q")))
	}))
	t.Cleanup(srv.Close)
	m := mustParse(t, `{"name":"lookup","description":"Look up","kind":"http","url":"`+srv.URL+`/find?q={arg}"}`)
	tl := Tool(m, Deps{HTTP: srv.Client()})
	if tl.Info().Effect != tool.Fetches {
		t.Errorf("effect %v", tl.Info().Effect)
	}
	out, err := call(t, tl, "a b&x=1")
	if err != nil || out != "answer for a b&x=1" {
		t.Errorf("lookup: %q %v", out, err)
	}
	if _, err := call(t, tl, "missing"); err == nil || !strings.Contains(err.Error(), "404") || !strings.Contains(err.Error(), "no such thing") {
		t.Errorf("a 404: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 || got[0] != "q=a+b%26x%3D1" {
		t.Errorf("the server got %q", got)
	}
}

// recordingLauncher runs commands as they are and remembers them.
type recordingLauncher struct {
	mu    sync.Mutex
	argvs [][]string
}

func (l *recordingLauncher) Launch(x proc.Exec) (proc.Exec, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.argvs = append(l.argvs, slices.Clone(x.Argv))
	return x, nil
}

// The shell kind runs as bash does, through the workspace's launcher (its
// sandbox), with the model's argument as one quoted word.
func TestShellToolRunsThroughTheLauncherWithAQuotedArgument(t *testing.T) {
	t.Parallel()
	env := wstest.Env(t, nil)
	l := &recordingLauncher{}
	env.Launcher = l
	m := mustParse(t, `{"name":"greet","description":"Greets","kind":"shell","command":"printf 'hello %s' {arg}"}`)
	tl := Tool(m, Deps{Env: env})
	if tl.Info().Effect != tool.Runs || tl.Info().Subject != tool.CommandSubject {
		t.Errorf("info %+v", tl.Info())
	}
	out, err := call(t, tl, "you; touch pwned")
	if err != nil || !strings.Contains(out, "hello you; touch pwned") {
		t.Errorf("greet: %q %v", out, err)
	}
	if _, err := os.Stat(filepath.Join(env.Root, "pwned")); err == nil {
		t.Error("the argument ran as a command")
	}
	l.mu.Lock()
	if !slices.ContainsFunc(l.argvs, func(argv []string) bool {
		return slices.Equal(argv[1:], []string{"--norc", "-c", "printf 'hello %s' 'you; touch pwned'"})
	}) {
		t.Errorf("the launcher was given %q", l.argvs)
	}
	l.mu.Unlock()
	fail := Tool(mustParse(t, `{"name":"fails","description":"Fails","kind":"shell","command":"echo broken >&2; exit 3"}`), Deps{Env: env})
	if _, err := call(t, fail, ""); err == nil || !strings.Contains(err.Error(), "exit: 3") || !strings.Contains(err.Error(), "broken") {
		t.Errorf("a non-zero exit: %v", err)
	}
}
