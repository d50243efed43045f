package tooltest

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/shiro-neko/shiro/internal/tool"
)

// Plan prepares a call of tl with the raw input and checks the plan it
// makes: what the gate judges and people see before anything runs. A tool
// that only reads must offer no preview, since it changes nothing.
func Plan(t testing.TB, tl tool.Tool, input string, want tool.Plan) {
	t.Helper()
	name := tl.Info().Name
	p, err := tl.Prepare(json.RawMessage(input))
	if err != nil {
		t.Errorf("%s %s: %v", name, input, err)
		return
	}
	if got := p.Plan(); !reflect.DeepEqual(got, want) {
		t.Errorf("%s %s: plan %+v, want %+v", name, input, got, want)
	}
	if _, ok := p.(tool.Previewer); ok && tl.Info().Effect == tool.Reads {
		t.Errorf("%s changes nothing, yet offers a preview", name)
	}
}
