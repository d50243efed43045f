package headless

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/shiro-neko/shiro/internal/picture"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// LoadImage reads a picture for a turn (-i FILE, or "path" in a
// stream-json turn): a PNG, JPEG, GIF or WebP file, scaled down when it is
// larger than a model reads. A relative path is taken from dir.
func LoadImage(dir, path string) (protocol.Image, error) {
	full := path
	if !filepath.IsAbs(full) {
		full = filepath.Join(dir, path)
	}
	fi, err := os.Stat(full)
	if err != nil {
		return protocol.Image{}, fmt.Errorf("image %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return protocol.Image{}, fmt.Errorf("image %s: not a regular file", path)
	}
	if fi.Size() > picture.MaxFileBytes {
		return protocol.Image{}, fmt.Errorf("image %s: %d bytes is too large a file to read as a picture", path, fi.Size())
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return protocol.Image{}, fmt.Errorf("image %s: %w", path, err)
	}
	img, _, err := picture.Prepare(path, data)
	if err != nil {
		return protocol.Image{}, fmt.Errorf("image %w", err)
	}
	return protocol.Image{MediaType: img.MediaType, Data: img.Data, Name: filepath.Base(path)}, nil
}

// loadTurnImages fills in the bytes of a stream-json turn's pictures
// given by path.
func loadTurnImages(dir string, turn protocol.UserTurn) (protocol.UserTurn, error) {
	pictures := turn.Pictures()
	if len(pictures) == 0 {
		return turn, nil
	}
	images := make([]protocol.Image, len(pictures))
	for i, img := range pictures {
		switch {
		case img.Path != "" && len(img.Data) > 0:
			return turn, fmt.Errorf("image %d: give either \"path\" or \"data\", not both", i+1)
		case img.Path != "":
			loaded, err := LoadImage(dir, img.Path)
			if err != nil {
				return turn, err
			}
			images[i] = loaded
		case len(img.Data) == 0:
			return turn, fmt.Errorf("image %d: it needs \"path\" (a file) or \"data\" (base64) with \"mediaType\"", i+1)
		default:
			images[i] = img
		}
	}
	return turn.WithImages(images), nil
}
