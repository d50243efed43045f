package tool

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// Def defines a tool over its typed input In, a struct whose json tags name
// the members and whose `jsonschema:"…"` tags describe them. The schema the
// model sees is derived from In, and every call is decoded against that same
// schema, so the two cannot drift apart. Fields without `omitempty` are
// required.
type Def[In any] struct {
	// Info describes the tool; its Schema is filled in from In.
	Info
	// Shape adjusts the derived schema where Go types say too little:
	// enums, bounds, item limits. It may be nil.
	Shape func(s *jsonschema.Schema)
	// Check validates a decoded input beyond its schema (a path that must
	// not be empty, a range that must be ordered). It may be nil.
	Check func(in *In) error
	// Plan says what a call touches. It may be nil for a tool with no
	// subjects, writes or commands.
	Plan func(in *In) Plan
	// Preview computes the change a call will make, with the code that
	// will make it. It may be nil.
	Preview func(ctx context.Context, in *In) (*protocol.Diff, error)
	// Run executes a call.
	Run func(ctx context.Context, rt Runtime, in *In) (Result, error)
}

// New makes a Tool of d. The schema is derived the first time it is
// needed, so building a registry costs nothing until a request is made. An
// input type that has no JSON schema is a programming error: New's tool
// panics on first use, and every tool's test catches it.
//
// The wire form (in Info) and the resolved form calls are checked against
// are derived separately: every request lists every tool, but a session
// calls few of them, and the resolved trees of the rest (0.3 MB for the
// built-in tools) were kept for nothing.
func New[In any](d Def[In]) Tool {
	t := &typed[In]{def: d}
	derive := func() (json.RawMessage, *jsonschema.Resolved) {
		s, resolved, err := schemaFor[In](d.Shape)
		if err != nil {
			panic("tool " + d.Name + ": " + err.Error())
		}
		return s, resolved
	}
	t.info = sync.OnceValue(func() *Info {
		info := d.Info
		info.Schema, _ = derive()
		return &info
	})
	t.resolved = sync.OnceValue(func() *jsonschema.Resolved {
		_, r := derive()
		return r
	})
	return t
}

type typed[In any] struct {
	def      Def[In]
	info     func() *Info
	resolved func() *jsonschema.Resolved
}

func (t *typed[In]) Info() *Info { return t.info() }

func (t *typed[In]) Prepare(input json.RawMessage) (Prepared, error) {
	resolved := t.resolved()
	in := new(In)
	input, err := decodeStrict(input, resolved, in)
	if err != nil {
		return nil, err
	}
	if t.def.Check != nil {
		if err := t.def.Check(in); err != nil {
			return nil, asInputError(err)
		}
	}
	p := &prepared[In]{def: &t.def, in: in, input: input}
	p.plan = sync.OnceValue(func() Plan {
		if p.def.Plan == nil {
			return Plan{}
		}
		return p.def.Plan(p.in)
	})
	if t.def.Preview != nil {
		return &previewing[In]{p}, nil
	}
	return p, nil
}

type prepared[In any] struct {
	def   *Def[In]
	in    *In
	input json.RawMessage
	// plan is the Def's Plan for in, made once: the gate, the turn and
	// the events each ask for it (bash's parses the line).
	plan func() Plan
}

func (p *prepared[In]) Input() json.RawMessage { return p.input }

func (p *prepared[In]) Plan() Plan { return p.plan() }

func (p *prepared[In]) Run(ctx context.Context, rt Runtime) (Result, error) {
	return p.def.Run(ctx, rt, p.in)
}

// previewing is a prepared call of a tool that has a Preview, so that only
// those calls satisfy Previewer.
type previewing[In any] struct{ *prepared[In] }

func (p *previewing[In]) Preview(ctx context.Context) (*protocol.Diff, error) {
	return p.def.Preview(ctx, p.in)
}
