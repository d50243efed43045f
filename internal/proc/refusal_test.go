package proc

import (
	"context"
	"testing"
)

type namedLauncher struct{ name string }

func (l *namedLauncher) Launch(x Exec) (Exec, error) { return x, nil }

// sliceLauncher cannot be compared with ==.
type sliceLauncher []string

func (sliceLauncher) Launch(x Exec) (Exec, error) { return x, nil }

// WithLauncher swaps exactly the launcher it names, innermost first, and
// leaves every other launcher (one that cannot be compared included)
// alone.
func TestWithLauncherSwapsOnlyTheNamedLauncher(t *testing.T) {
	session, wide, wider, other := &namedLauncher{"session"}, &namedLauncher{"wide"}, &namedLauncher{"wider"}, &namedLauncher{"other"}
	ctx := WithLauncher(context.Background(), session, wide)
	if got := launcherFor(ctx, session); got != wide {
		t.Fatalf("session launches with %v", got)
	}
	if got := launcherFor(ctx, other); got != other {
		t.Fatalf("another launcher was swapped for %v", got)
	}
	if got := launcherFor(WithLauncher(ctx, session, wider), session); got != wider {
		t.Fatalf("the innermost swap lost to %v", got)
	}
	odd := sliceLauncher{"x"}
	if got := launcherFor(ctx, odd); got == nil {
		t.Fatal("a launcher that cannot be compared was dropped")
	}
	if got := launcherFor(context.Background(), session); got != session {
		t.Fatalf("no swap: %v", got)
	}
	if launcherFor(ctx, nil) != nil {
		t.Fatal("no launcher became one")
	}
}
