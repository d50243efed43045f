package sample

import "strings"

// Limit bounds things.
const Limit = 10

const (
	// First is first.
	First = iota
	Second
)

type (
	// Pair holds two.
	Pair struct {
		Left  int
		Right int
	}
	Name string
)

// Server serves.
type Server struct {
	addr string
}

// Start starts the server; the brace in "}" does not end it.
func (s *Server) Start(opts ...string) error {
	msg := "}"
	r := '}'
	_ = r
	raw := `
}
`
	/* } */
	return strings.ErrUnsupported(msg + raw) // }
}

func Map[T any](xs []T,
	f func(T) T,
) []T {
	for i := range xs {
		xs[i] = f(xs[i])
	}
	return xs
}

var registry = map[string]int{
	"a": 1,
}

// func Commented() is not a declaration.
