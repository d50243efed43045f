//go:build unix

package hooks

import (
	"context"
	"encoding/json"
	"testing"
)

func benchRunner(b *testing.B) *Runner {
	f := newFixture(b)
	f.hook("guard", KindPreTool, []string{"bash"}, `echo '{"allow":true}'`)
	return f.approved("guard")
}

// BenchmarkVerify is what trust costs per run: hash the project's folder,
// look up the approval, check the private copy.
func BenchmarkVerify(b *testing.B) {
	r := benchRunner(b)
	e := r.set.entries[0]
	for b.Loop() {
		if _, msg := r.verify(e); msg != "" {
			b.Fatal(msg)
		}
	}
}

// BenchmarkPreToolNotCovered is the cost for a call no hook covers.
func BenchmarkPreToolNotCovered(b *testing.B) {
	r := benchRunner(b)
	in := json.RawMessage(`{"path":"a.go"}`)
	for b.Loop() {
		if res := r.PreTool(context.Background(), "read_file", "c", "", in); res.Blocked {
			b.Fatal(res.Reason)
		}
	}
}

// BenchmarkPreTool is a whole call through one /bin/sh hook.
func BenchmarkPreTool(b *testing.B) {
	r := benchRunner(b)
	for b.Loop() {
		if res := preBash(r, "ls"); res.Blocked {
			b.Fatal(res.Reason)
		}
	}
}
