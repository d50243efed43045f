package llm

import (
	"slices"
	"sync"
)

// LastEncoding keeps the encoding of the last value an adapter encoded,
// for the parts of a request that stay the same from one step to the next
// (the system prompt, the tool list). They are tens of kilobytes, and
// comparing them is much cheaper than encoding them again. It is safe for
// concurrent use; the zero value is ready.
type LastEncoding[T any] struct {
	mu  sync.Mutex
	in  T
	out []byte
	set bool
}

// Get returns the encoding of in: the remembered one when equal says in
// is the value encoded last time, else encode(in), remembered together
// with clone(in) (a copy the caller cannot change behind its back).
func (l *LastEncoding[T]) Get(in T, equal func(a, b T) bool, clone func(T) T, encode func(T) ([]byte, error)) ([]byte, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.set && equal(l.in, in) {
		return l.out, nil
	}
	out, err := encode(in)
	if err != nil {
		return nil, err
	}
	l.in, l.out, l.set = clone(in), out, true
	return out, nil
}

// SameTools reports whether two tool lists are the same, field by field.
func SameTools(a, b []ToolSpec) bool {
	return slices.EqualFunc(a, b, func(x, y ToolSpec) bool {
		return x.Name == y.Name && x.Description == y.Description && string(x.Schema) == string(y.Schema) && x.Hosted == y.Hosted
	})
}

// CloneTools copies a tool list deeply: a caller may reuse a schema's
// bytes.
func CloneTools(specs []ToolSpec) []ToolSpec {
	out := make([]ToolSpec, len(specs))
	for i, s := range specs {
		s.Schema = slices.Clone(s.Schema)
		out[i] = s
	}
	return out
}
