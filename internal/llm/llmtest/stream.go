package llmtest

import (
	"context"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Collect drains a provider's stream, returning the parts before the first
// error.
func Collect(t testing.TB, p llm.Provider, req *llm.Request) ([]llm.StreamPart, error) {
	t.Helper()
	var parts []llm.StreamPart
	for part, err := range p.Stream(context.Background(), req) {
		if err != nil {
			return parts, err
		}
		parts = append(parts, part)
	}
	return parts, nil
}

// MustCollect is Collect for a stream that must not fail.
func MustCollect(t testing.TB, p llm.Provider, req *llm.Request) []llm.StreamPart {
	t.Helper()
	parts, err := Collect(t, p, req)
	if err != nil {
		t.Fatalf("stream failed after %d parts: %v", len(parts), err)
	}
	return parts
}

// FinishOf returns the Finish that must end parts.
func FinishOf(t testing.TB, parts []llm.StreamPart) llm.Finish {
	t.Helper()
	if len(parts) == 0 {
		t.Fatal("no parts")
	}
	f, ok := parts[len(parts)-1].(llm.Finish)
	if !ok {
		t.Fatalf("last part is %T, want Finish", parts[len(parts)-1])
	}
	return f
}

// LastBody decodes the body of the last model call the server received.
func (s *Server) LastBody(t testing.TB) map[string]any {
	t.Helper()
	calls := s.ModelCalls()
	if len(calls) == 0 {
		t.Fatal("the server received no model call")
	}
	return calls[len(calls)-1].JSON(t)
}
