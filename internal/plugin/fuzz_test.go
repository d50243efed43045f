package plugin_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/shiro-neko/shiro/internal/plugin"
)

// FuzzParseManifest checks that no input panics, that every accepted
// manifest survives a round trip through JSON unchanged, and that its
// plugin runs.
func FuzzParseManifest(f *testing.F) {
	if data, err := os.ReadFile("testdata/no-prod-db.json"); err == nil {
		f.Add(data)
	}
	for _, seed := range []string{
		`{"name":"a","description":"d","deny":[{"tools":["*"],"pathPattern":"x","reason":"r"}]}`,
		`{"name":"a","description":"d","deny":[{"tools":["bash"],"commandPattern":"(?i)^rm","reason":"r"}],"signer":"s","signature":"AAAA"}`,
		`{"name":"a","name":"b"}`,
		`{"Name":"a"}`,
		`[1,2]`,
		`{"deny":[{"tools":[1]}]}`,
		`{"name":"a","description":"d\u0000","deny":[]}`,
		"{\"name\":\"\xff\"}",
		`{"name":"a","description":"d","deny":[{"tools":["x"],"pathPattern":"(","reason":"r"}]} trailing`,
	} {
		f.Add([]byte(seed))
	}
	sample := []plugin.Call{
		bashCall("sudo rm -rf x && echo ok > .env"),
		{Tool: "write_file", Input: json.RawMessage(`{"path":"a/../b"}`), Writes: []string{"a/../b", ""}},
		{Tool: "read_file", Input: json.RawMessage(`{"path":5,"paths":["x"],"files":"no"}`)},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := plugin.ParseManifest("fuzz.json", data)
		if err != nil {
			if _, ok := err.(*plugin.ManifestError); !ok {
				t.Fatalf("error %T is not a *ManifestError: %v", err, err)
			}
			return
		}
		again, err := plugin.ParseManifest("again.json", mustMarshal(t, m))
		if err != nil {
			t.Fatalf("an accepted manifest does not parse after a round trip: %v", err)
		}
		if !reflect.DeepEqual(m, again) {
			t.Fatalf("round trip changed the manifest:\n%+v\n%+v", m, again)
		}
		p := m.Plugin()
		for _, c := range sample {
			if _, err := p.BeforeToolCall(context.Background(), c); err != nil {
				t.Fatalf("a valid manifest's plugin failed: %v", err)
			}
		}
	})
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// FuzzBuiltinsOnShellCommands runs every builtin on arbitrary command
// lines: none may fail or panic (the host would turn that into a block,
// hiding a bug as a refusal).
func FuzzBuiltinsOnShellCommands(f *testing.F) {
	for _, seed := range []string{
		"sudo  git push -f", `bash -c "echo API_KEY=1 >> .env"`, "cp -t ~/.ssh id", "git -c alias.p='push -f' p",
		"sed -i '' s/a/b/ yarn.lock", "powershell -enc AAAA", "cd x && git commit -m y", "export A_KEY=1 B=2",
		"cat <<EOF > .env\nTOKEN=x\nEOF", "curl -o", "dd of=", "git push +", "Start-Process -Verb",
	} {
		f.Add(seed)
	}
	deps := plugin.BuiltinDeps{Run: func(context.Context, string, ...string) ([]byte, error) { return []byte("main\n"), nil }}
	var ps []plugin.Plugin
	for _, p := range plugin.Builtins(deps) {
		if p.BeforeToolCall != nil {
			ps = append(ps, p)
		}
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		c := bashCall(cmd)
		c.Writes = []string{cmd}
		for _, p := range ps {
			if _, err := p.BeforeToolCall(context.Background(), c); err != nil {
				t.Fatalf("%s failed on %q: %v", p.Name, cmd, err)
			}
		}
	})
}
