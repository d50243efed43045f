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
	// maxOwnInitBytes bounds one package of this module (the largest
	// today, internal/registry, allocates about 8 KB).
	maxOwnInitBytes = 16 << 10
	// maxInitBytes bounds any other package; the SDKs' generated tables
	// are the largest today (openai-go about 145 KB, x/net/html's tables
	// 127 KB).
	maxInitBytes = 160 << 10
	// maxAllInitBytes bounds all initialisers together: 0.88 MB today,
	// 2.6 MB while santhosh-tekuri/jsonschema compiled five drafts'
	// meta-schemas in every process for --output-schema.
	maxAllInitBytes = 1200 << 10
)

// heavyInits are the packages allowed past maxInitBytes, with the reason.
// None is today; an entry must say why every shiro process pays for it.
var heavyInits = map[string]string{}

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
	total := 0
	for pkg, size := range inits {
		total += size
		switch _, heavy := heavyInits[pkg]; {
		case strings.HasPrefix(pkg, "github.com/shiro-neko/shiro/") && size > maxOwnInitBytes:
			t.Errorf("%s allocates %d bytes in its package initialiser (bound %d): build what it needs on first use (sync.OnceValue)",
				pkg, size, maxOwnInitBytes)
		case size > maxInitBytes && !heavy:
			t.Errorf("%s allocates %d bytes in its package initialiser (bound %d), in every shiro process: avoid linking it, or list it in heavyInits with the reason",
				pkg, size, maxInitBytes)
		}
	}
	if total > maxAllInitBytes {
		t.Errorf("package initialisers allocate %d bytes in all (bound %d), in every shiro process", total, maxAllInitBytes)
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
