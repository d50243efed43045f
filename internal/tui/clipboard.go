package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/shiro-neko/shiro/internal/picture"
	"github.com/shiro-neko/shiro/internal/proc"
)

// A picture in the clipboard (a screenshot taken to the clipboard) is
// attached with ctrl+v, where the platform has a program that hands the
// clipboard's image out: wl-paste on Wayland, xclip on X11. A terminal
// pastes text only, so this is the one way in for an image that is not a
// file. Elsewhere ctrl+v says how to attach one instead.

// clipboardTimeout bounds the clipboard program: a clipboard owner that
// does not answer must not leave the key waiting.
const clipboardTimeout = 5 * time.Second

// clipboardImageMsg is what the clipboard held: a picture, or why not.
type clipboardImageMsg struct {
	data []byte
	err  error
}

// clipboardReader is the program that prints the clipboard's PNG, chosen
// by the display the session runs under.
func clipboardReader(getenv func(string) string) ([]string, error) {
	switch {
	case getenv("WAYLAND_DISPLAY") != "":
		if _, err := exec.LookPath("wl-paste"); err == nil {
			return []string{"wl-paste", "--no-newline", "--type", "image/png"}, nil
		}
		return nil, errors.New("reading a picture from the clipboard needs wl-paste (the wl-clipboard package); or paste the picture's path")
	case getenv("DISPLAY") != "":
		if _, err := exec.LookPath("xclip"); err == nil {
			return []string{"xclip", "-selection", "clipboard", "-t", "image/png", "-o"}, nil
		}
		return nil, errors.New("reading a picture from the clipboard needs xclip; or paste the picture's path")
	}
	return nil, errors.New("no clipboard to read a picture from here (no Wayland or X display); paste the picture's path instead")
}

// readClipboardImage runs the clipboard program, off the UI's goroutine.
func readClipboardImage() tea.Cmd {
	return func() tea.Msg {
		argv, err := clipboardReader(os.Getenv)
		if err != nil {
			return clipboardImageMsg{err: err}
		}
		var out bytes.Buffer
		ctx, cancel := context.WithTimeout(context.Background(), clipboardTimeout)
		defer cancel()
		res, err := proc.Run(ctx, proc.Spec{Argv: argv, Timeout: clipboardTimeout,
			Stdout: proc.Stream(func(b []byte) {
				if out.Len() <= picture.MaxFileBytes {
					out.Write(b)
				}
			})})
		switch {
		case err != nil:
			return clipboardImageMsg{err: fmt.Errorf("read the clipboard with %s: %w", argv[0], err)}
		case !res.Exit.Success() || out.Len() == 0:
			return clipboardImageMsg{err: fmt.Errorf("the clipboard holds no picture (%s: %s)", argv[0], res.Exit)}
		case out.Len() > picture.MaxFileBytes:
			return clipboardImageMsg{err: errors.New("the clipboard's picture is too large to attach")}
		}
		return clipboardImageMsg{data: out.Bytes()}
	}
}

// clipboardImage attaches what the clipboard program read.
func (m *model) clipboardImage(msg clipboardImageMsg) {
	if msg.err != nil {
		m.note(noteError, msg.err.Error())
		return
	}
	m.attachImageData("clipboard.png", "the clipboard", msg.data)
}
