package tui

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"github.com/shiro-neko/shiro/internal/protocol"
)

// ctrl+v attaches the clipboard's picture, read by the display's clipboard
// program (here an xclip on PATH that prints a PNG and records how it was
// asked); with no display it says how to attach one instead.
func TestCtrlVAttachesTheClipboardsPicture(t *testing.T) {
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 9, 7))); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	shot, args := filepath.Join(bin, "shot.png"), filepath.Join(bin, "args")
	if err := os.WriteFile(shot, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	xclip := "#!/bin/sh\necho \"$@\" > '" + args + "'\ncat '" + shot + "'\n"
	if err := os.WriteFile(filepath.Join(bin, "xclip"), []byte(xclip), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("DISPLAY", ":0")

	s := newFakeSession(t)
	d := startDriver(t, s, Options{})
	d.typeText("why is this red ")
	d.press("ctrl+v")
	d.waitText("› why is this red [image 1: clipboard.png]", "attached the clipboard")
	d.press("enter")
	turn, ok := s.nextOp(t).(protocol.UserTurn)
	if !ok || turn.Text != "why is this red [image 1: clipboard.png]" {
		t.Fatalf("turn = %#v", turn)
	}
	if pics := turn.Pictures(); len(pics) != 1 || !bytes.Equal(pics[0].Data, buf.Bytes()) || pics[0].MediaType != "image/png" {
		t.Fatalf("pictures %+v", pics)
	}
	if got, _ := os.ReadFile(args); string(got) != "-selection clipboard -t image/png -o\n" {
		t.Errorf("xclip was asked %q", got)
	}

	t.Setenv("DISPLAY", "")
	d.press("ctrl+v")
	d.waitText("no clipboard to read a picture from here")
}
