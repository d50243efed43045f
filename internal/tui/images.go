package tui

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/shiro-neko/shiro/internal/picture"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// attachImage takes a pasted picture path: the picture, scaled down when
// large, waits for the next prompt, and the input shows a placeholder
// ("[image 1: shot.png]") that the model reads too. It reports false when
// the path names no file, so that the paste goes in as text; a file that
// is not a picture after all is reported and left as text as well.
func (m *model) attachImage(path string) bool {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if fi.Size() > picture.MaxFileBytes {
		m.note(noteError, fmt.Sprintf("%s is too large to attach (%d bytes)", path, fi.Size()))
		return false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		m.note(noteError, "could not attach the picture: "+err.Error())
		return false
	}
	return m.attachImageData(filepath.Base(path), path, data)
}

// attachImageData attaches a picture's bytes under name; from says where
// they came from, for the notice.
func (m *model) attachImageData(name, from string, data []byte) bool {
	img, info, err := picture.Prepare(name, data)
	if err != nil {
		m.note(noteError, "not attached: "+err.Error())
		return false
	}
	token := fmt.Sprintf("[image %d: %s]", len(m.images)+1, name)
	m.images[token] = protocol.Image{MediaType: img.MediaType, Data: img.Data, Name: name}
	m.input.InsertString(token)
	m.afterInputChange()
	m.note(noteNotice, fmt.Sprintf("attached %s (%s)", from, info))
	return true
}
