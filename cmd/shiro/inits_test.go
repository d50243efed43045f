package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every shiro process, --version included, runs the initialiser of every
// package the binary links, and what an initialiser allocates and touches
// stays resident for the life of the process. Shiro's own packages compile
// their regular expressions and build their tables on first use instead
// (sync.OnceValue at the use site); these bounds keep it so. They are on
// bytes allocated, which GODEBUG=inittrace=1 reports exactly, not on time.
const (
	// maxOwnInitBytes bounds one package of this module.
	maxOwnInitBytes = 32 << 10
	// maxInitBytes bounds any other package; the SDKs' generated tables
	// are the largest today (openai-go about 150 KB).
	maxInitBytes = 256 << 10
)

// heavyInits are the packages allowed past maxInitBytes, with the reason.
var heavyInits = map[string]string{
	// It compiles the meta-schemas of five JSON Schema drafts at init:
	// 1.7 MB in 21,000 allocations and about 8 ms, 1.6 MiB of every
	// process's peak RSS. --output-schema needs its meta-schema check and
	// its error locations (docs/performance.md).
	"github.com/santhosh-tekuri/jsonschema/v6": "--output-schema",
}

func TestStartUpInitialisersAllocateLittle(t *testing.T) {
	if testing.Short() {
		t.Skip("links the whole program")
	}
	bin := filepath.Join(t.TempDir(), "shiro")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Env = withoutRaceFlag(os.Environ())
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := exec.Command(bin, "--version")
	run.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var trace bytes.Buffer
	run.Stderr = &trace
	if err := run.Run(); err != nil {
		t.Fatalf("shiro --version: %v\n%s", err, trace.String())
	}
	inits := parseInitTrace(t, trace.String())
	if len(inits) < 50 {
		t.Fatalf("read %d initialisers from GODEBUG=inittrace=1; has its format changed?\n%s", len(inits), trace.String())
	}
	for pkg, size := range inits {
		switch _, heavy := heavyInits[pkg]; {
		case strings.HasPrefix(pkg, "github.com/shiro-neko/shiro/") && size > maxOwnInitBytes:
			t.Errorf("%s allocates %d bytes in its package initialiser (bound %d): build what it needs on first use (sync.OnceValue)",
				pkg, size, maxOwnInitBytes)
		case size > maxInitBytes && !heavy:
			t.Errorf("%s allocates %d bytes in its package initialiser (bound %d), in every shiro process: avoid linking it, or list it in heavyInits with the reason",
				pkg, size, maxInitBytes)
		}
	}
	for pkg, why := range heavyInits {
		if inits[pkg] <= maxInitBytes {
			t.Errorf("heavyInits lists %s (%s), which now allocates %d bytes at init: the entry is stale", pkg, why, inits[pkg])
		}
	}
}

// parseInitTrace reads lines such as
// "init net/http @13 ms, 0.079 ms clock, 4712 bytes, 49 allocs"
// into the bytes each package's initialiser allocated.
func parseInitTrace(t *testing.T, trace string) map[string]int {
	t.Helper()
	out := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 11 || f[0] != "init" || f[8] != "bytes," {
			continue
		}
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("inittrace line %q: %v", sc.Text(), err)
		}
		out[f[1]] += n
	}
	return out
}
