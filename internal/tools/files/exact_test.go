package files

import (
	"strings"
	"testing"
	"unsafe"
)

// A read's text stays in the history for the whole session, so it must
// not keep the room its builder grew into: with much to spare it is
// copied into an array of its own length; with little, it is kept as is.
func TestReadTextKeepsNoSpareRoom(t *testing.T) {
	var roomy strings.Builder
	roomy.Grow(64 << 10)
	roomy.WriteString(strings.Repeat("1: line\n", 1000))
	got := exactString(&roomy)
	if got != roomy.String() {
		t.Fatal("the text changed")
	}
	if unsafe.StringData(got) == unsafe.StringData(roomy.String()) {
		t.Fatalf("a %d-byte text still shares its builder's %d-byte array", len(got), roomy.Cap())
	}
	var tight strings.Builder
	tight.Grow(8000)
	tight.WriteString(strings.Repeat("1: line\n", 1000))
	if got := exactString(&tight); unsafe.StringData(got) != unsafe.StringData(tight.String()) {
		t.Fatal("a text whose builder has little spare room was copied")
	}
}
