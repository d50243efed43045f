package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// maxStrippedSize is the bound on `go build -ldflags='-s -w'` of shiro.
// The binary was 88 MB while text/template was reachable (see below) and
// 51 MB once it was not; it is 54.1 MB without santhosh-tekuri/jsonschema.
// The bound is issue 27's bar, 55 MB.
const maxStrippedSize = 55_000_000

// reflectMethodMark is how the linker's -dumpdep output flags a function
// that calls reflect.Value.Method or MethodByName with a name it cannot
// see at link time (text/template's field evaluation is one). Once such a
// function is reachable the linker must keep every exported method of every
// reachable type, since any of them might be called by name; that is what
// made shiro 37 MB heavier and its every process larger.
const reflectMethodMark = "<ReflectMethod>"

// TestBinaryKeepsDeadCodeElimination links the real shiro the way a release
// is built and checks that no reachable function defeats the linker's
// removal of unused methods, and that the stripped binary stays lean.
// It runs its own `go build` (never with -race, whatever this test binary
// was built with) so the figure is the shipped binary's.
func TestBinaryKeepsDeadCodeElimination(t *testing.T) {
	if testing.Short() {
		t.Skip("links the whole program")
	}
	bin := filepath.Join(t.TempDir(), "shiro")
	build := exec.Command("go", "build", "-ldflags=-s -w -dumpdep", "-o", bin, ".")
	build.Env = withoutRaceFlag(os.Environ())
	dump, err := build.StderrPipe() // the linker's dependency dump comes out on go build's stderr
	if err != nil {
		t.Fatal(err)
	}
	if err := build.Start(); err != nil {
		t.Fatalf("go build: %v", err)
	}
	chain, other := scanDumpDep(t, dump)
	if err := build.Wait(); err != nil {
		t.Fatalf("go build: %v\n%s", err, strings.Join(other, "\n"))
	}
	if chain != nil {
		t.Errorf("a reachable function calls methods by reflection, so the linker keeps every exported method "+
			"(the reason --version must not use cobra's templates); how it is reached:\n  %s",
			strings.Join(chain, "\n  <- "))
	}
	fi, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("stripped shiro: %.1f MB", float64(fi.Size())/1e6)
	if fi.Size() > maxStrippedSize {
		t.Errorf("stripped shiro is %.1f MB, over the %.0f MB bound; `go tool nm -size -sort size` on an unstripped build shows what grew",
			float64(fi.Size())/1e6, maxStrippedSize/1e6)
	}
}

// scanDumpDep reads the linker's "from -> to" reachability lines. It
// returns the path from the first function flagged as a reflective method
// caller back towards the program's roots (nil when there is none), and the
// lines that are not part of the dump (compiler or linker errors).
func scanDumpDep(t *testing.T, r io.Reader) (chain, other []string) {
	t.Helper()
	parent := map[string]string{} // symbol -> the symbol that first reached it
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Text()
		from, to, ok := strings.Cut(line, " -> ")
		if !ok {
			other = append(other, line)
			continue
		}
		from, to = strings.TrimSuffix(from, " "+reflectMethodMark), strings.TrimSuffix(to, " "+reflectMethodMark)
		if _, seen := parent[to]; !seen {
			parent[to] = from
		}
		if chain == nil && strings.Contains(line, reflectMethodMark) {
			sym := from
			if strings.HasSuffix(line, reflectMethodMark) {
				sym = to
			}
			chain = []string{sym}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the linker's dump: %v", err)
	}
	// Walk the first flagged symbol back through who reached it.
	if chain != nil {
		for sym := chain[0]; len(chain) < 40; {
			p, ok := parent[sym]
			if !ok || p == "_" {
				break
			}
			chain = append(chain, p)
			sym = p
		}
	}
	return chain, other
}

// withoutRaceFlag drops -race from GOFLAGS, so a CI run under -race still
// measures the binary that ships.
func withoutRaceFlag(env []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "GOFLAGS="); ok {
			var keep []string
			for _, f := range strings.Fields(v) {
				if f != "-race" && f != "-race=true" {
					keep = append(keep, f)
				}
			}
			kv = "GOFLAGS=" + strings.Join(keep, " ")
		}
		out = append(out, kv)
	}
	return out
}
