package proc

import (
	"context"
	"reflect"
)

// Refusal is what a command's confinement refused it, as data, so that a
// front end can offer to allow it and run the command again.
type Refusal struct {
	// Path is the folder to allow writing, absolute; empty for the
	// network.
	Path string
	// Network: a connection out was refused.
	Network bool
	// Denied is the path the command was refused, absolute (within Path).
	Denied string
	// Shown is Path as messages show it (~/… under the home directory).
	Shown string
}

// Refuser is an Explainer that can also say what it refused as data. It
// is asked, like Explain, once a command has ended, with the same output.
type Refuser interface {
	Explainer
	// Refused returns what the confinement refused the command, or nil
	// when nothing points at it, or when allowing it would not help.
	Refused(exit Exit, output []byte) *Refusal
}

// launcherSwap is the context key of WithLauncher.
type launcherSwap struct{}

type swap struct {
	from, to Launcher
	next     *swap
}

// WithLauncher returns a context under which a command whose Spec names
// the launcher from is launched by to instead. It scopes a widened
// confinement to one tool call (allowing a refused path once): the call
// runs under the context, and every command it starts, however deep in
// the tool's code, gets the widened launcher, while commands of other
// calls keep the session's.
func WithLauncher(ctx context.Context, from, to Launcher) context.Context {
	prev, _ := ctx.Value(launcherSwap{}).(*swap)
	return context.WithValue(ctx, launcherSwap{}, &swap{from: from, to: to, next: prev})
}

// launcherFor is the launcher that launches a command of l under ctx.
func launcherFor(ctx context.Context, l Launcher) Launcher {
	if l == nil || !reflect.TypeOf(l).Comparable() {
		return l
	}
	for s, _ := ctx.Value(launcherSwap{}).(*swap); s != nil; s = s.next {
		if s.from == l {
			return s.to
		}
	}
	return l
}
