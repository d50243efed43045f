package prompt

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/workspace"
)

func TestRoughCount(t *testing.T) {
	cases := []struct {
		n    int
		cut  bool
		want string
	}{
		{7, false, "7"}, {99, false, "90+"}, {100, false, "100"}, {1234, false, "1,000+"},
		{12000, false, "10,000+"}, {20000, true, "20,000+"}, {50, true, "50+"}, {1234567, false, "1,000,000+"},
	}
	for _, c := range cases {
		if got := roughCount(c.n, c.cut); got != c.want {
			t.Errorf("roughCount(%d, %v) = %q, want %q", c.n, c.cut, got, c.want)
		}
	}
}

func tree(t testing.TB, files ...string) *workspace.Env {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	return env
}

func TestOverviewIsBoundedShallowFirstAndIgnoreAware(t *testing.T) {
	var files []string
	for i := range 400 {
		files = append(files, fmt.Sprintf("deep/a/b/file%03d.go", i))
	}
	files = append(files, "README.md", "go.mod", "cmd/main.go", ".gitignore", "build/out.bin")
	env := tree(t, files...)
	if err := os.WriteFile(filepath.Join(env.Root, ".gitignore"), []byte("build/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ov := Overview(context.Background(), env, 600)
	if len(ov) > 600+200 {
		t.Fatalf("overview is %d bytes for a 600-byte budget", len(ov))
	}
	for _, want := range []string{"README.md\n", "cmd/\n", "deep/\n", "go.mod\n", "deep/a/b/\n"} {
		if !strings.Contains(ov, want) {
			t.Errorf("shallow entry %q missing:\n%s", want, ov)
		}
	}
	if strings.Contains(ov, "build/") {
		t.Error("ignored directory listed")
	}
	if !strings.Contains(ov, "… and 400 more entries below the levels shown; use glob, grep or list_dir") {
		t.Errorf("what did not fit is not counted:\n%s", ov)
	}
	// Same tree, same bytes: the overview is part of the cached prefix.
	if again := Overview(context.Background(), env, 600); again != ov {
		t.Fatal("the overview is not deterministic")
	}
}

// overviewTrees are the trees the overview cost is measured on: this
// repository and the Go standard library's source, a large tree.
func overviewTrees(b *testing.B) map[string]string {
	trees := map[string]string{}
	if out, err := exec.Command("go", "env", "GOROOT").Output(); err == nil {
		trees["goroot-src"] = filepath.Join(strings.TrimSpace(string(out)), "src")
	}
	if root, err := filepath.Abs("../.."); err == nil {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			trees["this-repo"] = root
		}
	}
	return trees
}

// BenchmarkOverview measures what the overview costs per request (bytes,
// reported as bytes/req) and to build (ns/op), for several budgets, next
// to the original's list of up to 5,000 paths (budget "all5000").
//
//	go test ./internal/prompt -run XXX -bench Overview -benchtime 5x
func BenchmarkOverview(b *testing.B) {
	for name, dir := range overviewTrees(b) {
		env, err := workspace.New(dir)
		if err != nil {
			b.Fatal(err)
		}
		for _, budget := range []int{2000, DefaultOverviewBytes, 8000, 16000} {
			b.Run(fmt.Sprintf("%s/budget=%d", name, budget), func(b *testing.B) {
				var ov string
				for b.Loop() {
					ov = Overview(context.Background(), env, budget)
				}
				b.ReportMetric(float64(len(ov)), "bytes/req")
				b.ReportMetric(float64(strings.Count(ov, "\n")), "lines")
			})
		}
		b.Run(name+"/all5000", func(b *testing.B) {
			var size, n int
			for b.Loop() {
				size, n = 0, 0
				_ = workspace.Walk(context.Background(), env, ".", workspace.WalkOptions{}, func(rel string, d fs.DirEntry) error {
					if d.IsDir() {
						return nil
					}
					size += len(rel) + 1
					n++
					if n >= 5000 {
						return fs.SkipAll
					}
					return nil
				})
			}
			b.ReportMetric(float64(size), "bytes/req")
			b.ReportMetric(float64(n), "lines")
		})
	}
}
