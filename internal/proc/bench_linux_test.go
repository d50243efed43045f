package proc

import (
	"context"
	"testing"
)

// The cost of running a command that does nothing: what shiro adds to every
// bash call, hook and check, on top of the program itself.
func BenchmarkRunTrue(b *testing.B) {
	for _, c := range []struct {
		name string
		spec Spec
	}{
		{"bare", Spec{Argv: []string{"/bin/true"}}},
		{"streams", Spec{Argv: []string{"/bin/true"}, Stdin: []byte("x"), Stdout: Stream(func([]byte) {}), Stderr: Stream(func([]byte) {})}},
		{"die-with-parent", Spec{Argv: []string{"/bin/true"}, NewSession: true, DieWithParent: true, Stdout: Stream(func([]byte) {})}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				res, err := Run(context.Background(), c.spec)
				if err != nil || !res.Exit.Success() {
					b.Fatal(res, err)
				}
			}
		})
	}
}
