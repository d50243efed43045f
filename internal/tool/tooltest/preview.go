package tooltest

import (
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
	"github.com/shiro-neko/shiro/internal/tool"
)

// Previewed prepares a call of tl that must offer a preview and takes the
// preview, as the gate does before it asks; it returns the prepared call,
// for the test to run, and the preview.
func Previewed(t testing.TB, tl tool.Tool, input any) (tool.Prepared, *protocol.Diff) {
	t.Helper()
	p, err := tl.Prepare(Input(t, input))
	if err != nil {
		t.Fatal(err)
	}
	pv, ok := p.(tool.Previewer)
	if !ok {
		t.Fatalf("%s offers no preview", tl.Info().Name)
	}
	preview, err := pv.Preview(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return p, preview
}

// PreviewAndRun takes a call's preview, then runs the call, which must
// succeed; it returns the preview and the diff of the result, for the test
// to compare with each other and with the bytes on disk.
func PreviewAndRun(t testing.TB, tl tool.Tool, input any) (preview, ran *protocol.Diff) {
	t.Helper()
	p, preview := Previewed(t, tl, input)
	res, err := p.Run(t.Context(), tool.Runtime{})
	if err != nil {
		t.Fatal(err)
	}
	return preview, res.Diff
}
