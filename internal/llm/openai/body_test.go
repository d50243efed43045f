package openai_test

import (
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/llm/openai"
)

// A sealed history produces the very bytes a fresh one does, on both
// wires, on the first request (which fills the memo) and on later ones
// (which read it).
func TestSealedHistoryEncodesTheSameBytes(t *testing.T) {
	p := openai.New(openai.Config{APIKey: "k"})
	for _, build := range []func(*llm.Request) (*llm.Body, error){p.ChatBody, p.ResponsesBody} {
		req := longHistory()
		fresh, err := build(req)
		if err != nil {
			t.Fatal(err)
		}
		sealed := *req
		sealed.Messages = sealAll(req.Messages)
		for i := range 2 {
			got, err := build(&sealed)
			if err != nil {
				t.Fatal(err)
			}
			if string(got.Bytes()) != string(fresh.Bytes()) {
				t.Fatalf("request %d from sealed messages differs from a fresh encoding", i)
			}
		}
		bare := sealed
		bare.Tail = ""
		if got, _ := build(&bare); strings.Contains(string(got.Bytes()), "task list") {
			t.Fatal("the tail of an earlier request stayed in the memo")
		}
	}
}
