package tui

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// Dragging a picture onto the terminal pastes its path, quoted because it
// has a space: the input shows a placeholder, and the prompt goes to the
// session with the picture's bytes. A path of a file that is not there
// stays text.
func TestPastedImagePathAttachesThePicture(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 12, 8))); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "My Shots")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "shot one.png")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	d.typeText("what is wrong in ")
	d.send(tea.PasteMsg{Content: "'" + path + "' "})
	d.typeText(" and ")
	d.send(tea.PasteMsg{Content: "/nowhere/gone.png"})
	d.waitText("› what is wrong in [image 1: shot one.png] and /nowhere/gone.png")
	d.press("enter")
	op := s.nextOp(t)
	turn, ok := op.(protocol.UserTurn)
	if !ok || turn.Text != "what is wrong in [image 1: shot one.png] and /nowhere/gone.png" {
		t.Fatalf("op = %#v", op)
	}
	pics := turn.Pictures()
	if len(pics) != 1 || !bytes.Equal(pics[0].Data, buf.Bytes()) || pics[0].MediaType != "image/png" || pics[0].Name != "shot one.png" {
		t.Fatalf("pictures %+v", pics)
	}
}
