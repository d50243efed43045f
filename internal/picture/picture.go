// Package picture makes image files ready for a model: it finds what
// format a file is in from its bytes, checks that a model takes it, and
// scales a picture down when it is larger than a model reads, so that
// one screenshot never costs a megabyte of base64 in every request.
package picture

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/jpeg"
	"image/png"
	"net/http"
	"path/filepath"
	"strings"

	// Decoders for the formats every wire takes; png and jpeg come with
	// the encoders above.
	_ "image/gif"

	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp"

	"github.com/shiro-neko/shiro/internal/llm"
)

// Limits on what goes to a model.
const (
	// MaxEdge is the longest side, in pixels, a picture keeps. Models
	// scale larger ones down themselves (Anthropic's threshold is about
	// this), so sending more costs tokens and bytes for nothing.
	MaxEdge = 1568
	// MaxBytes is the most one encoded picture may weigh: Anthropic
	// refuses images over 5 MB of base64, which this leaves room under.
	MaxBytes = 3_700_000
	// MaxFileBytes is the largest file read as a picture at all.
	MaxFileBytes = 50 << 20
	// maxPixels refuses files whose header promises more pixels than is
	// sane to decode (a decompression bomb).
	maxPixels = 100_000_000
)

// extensions are the file names taken for pictures.
var extensions = []string{".png", ".jpg", ".jpeg", ".gif", ".webp"}

// IsImageName reports whether a file's name says it is a picture a model
// takes.
func IsImageName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	for _, e := range extensions {
		if ext == e {
			return true
		}
	}
	return false
}

// Sniff is the media type of data when it is a picture in a format the
// models take, from its first bytes; "" otherwise.
func Sniff(data []byte) string {
	mt := http.DetectContentType(data)
	if llm.SupportedImageType(mt) {
		return mt
	}
	return ""
}

// Info is what Prepare did: the picture's size as it goes out, and its
// size before when it was scaled down.
type Info struct {
	MediaType     string
	Width, Height int
	Bytes         int
	// From is the original size; zero when the picture went as it was.
	From image.Point
}

// String describes the picture for a message: "image/png 800×600, 41 KB",
// with ", scaled down from 4000×3000" when it was.
func (i Info) String() string {
	s := fmt.Sprintf("%s %d×%d, %s", i.MediaType, i.Width, i.Height, Size(i.Bytes))
	if i.From != (image.Point{}) {
		s += fmt.Sprintf(", scaled down from %d×%d", i.From.X, i.From.Y)
	}
	return s
}

// Prepare makes an image part of a file's bytes. A picture within MaxEdge
// and MaxBytes goes as it is, byte for byte; a larger one is decoded,
// scaled to fit and encoded again (JPEG stays JPEG, the rest becomes PNG,
// or JPEG when a PNG would still be too heavy). name is for errors.
func Prepare(name string, data []byte) (llm.Image, Info, error) {
	mt := Sniff(data)
	if mt == "" {
		return llm.Image{}, Info{}, fmt.Errorf("%s is not a PNG, JPEG, GIF or WebP picture (its bytes say %s)", name, http.DetectContentType(data))
	}
	if len(data) > MaxFileBytes {
		return llm.Image{}, Info{}, fmt.Errorf("%s is %s: pictures over %s are not read", name, Size(len(data)), Size(MaxFileBytes))
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return llm.Image{}, Info{}, fmt.Errorf("%s: reading its header: %w", name, err)
	}
	if cfg.Width <= 0 || cfg.Height <= 0 || cfg.Width*cfg.Height > maxPixels {
		return llm.Image{}, Info{}, fmt.Errorf("%s is %d×%d pixels: that is not a picture shiro will decode", name, cfg.Width, cfg.Height)
	}
	info := Info{MediaType: mt, Width: cfg.Width, Height: cfg.Height, Bytes: len(data)}
	if max(cfg.Width, cfg.Height) <= MaxEdge && len(data) <= MaxBytes {
		img, err := llm.NewImage(mt, data)
		return img, info, err
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return llm.Image{}, Info{}, fmt.Errorf("%s: decoding it to scale it down: %w", name, err)
	}
	out, info, err := shrink(src, mt == "image/jpeg")
	if err != nil {
		return llm.Image{}, Info{}, fmt.Errorf("%s: %w", name, err)
	}
	info.From = image.Pt(cfg.Width, cfg.Height)
	img, err := llm.NewImage(info.MediaType, out)
	return img, info, err
}

// shrink scales src to fit MaxEdge and encodes it under MaxBytes, halving
// the size again in the rare case that the first encoding is too heavy.
func shrink(src image.Image, photo bool) ([]byte, Info, error) {
	b := src.Bounds()
	w, h := fit(b.Dx(), b.Dy(), MaxEdge)
	for w >= 16 && h >= 16 {
		dst := image.NewRGBA(image.Rect(0, 0, w, h))
		draw.BiLinear.Scale(dst, dst.Bounds(), src, b, draw.Src, nil)
		out, mt, err := encode(dst, photo)
		if err != nil {
			return nil, Info{}, err
		}
		if len(out) <= MaxBytes {
			return out, Info{MediaType: mt, Width: w, Height: h, Bytes: len(out)}, nil
		}
		w, h = w/2, h/2
	}
	return nil, Info{}, errors.New("it cannot be made small enough for a model")
}

// encode writes a scaled picture: JPEG for photos, PNG for the rest
// (screenshots keep sharp text), JPEG after all when the PNG is too heavy.
func encode(img image.Image, photo bool) ([]byte, string, error) {
	var buf bytes.Buffer
	if !photo {
		if err := png.Encode(&buf, img); err != nil {
			return nil, "", fmt.Errorf("encoding the scaled picture: %w", err)
		}
		if buf.Len() <= MaxBytes {
			return buf.Bytes(), "image/png", nil
		}
		buf.Reset()
	}
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 85}); err != nil {
		return nil, "", fmt.Errorf("encoding the scaled picture: %w", err)
	}
	return buf.Bytes(), "image/jpeg", nil
}

// fit scales w×h to have its longest side at most edge, keeping its shape.
func fit(w, h, edge int) (int, int) {
	if w <= edge && h <= edge {
		return w, h
	}
	if w >= h {
		return edge, max(1, h*edge/w)
	}
	return max(1, w*edge/h), edge
}

// Size writes a byte count briefly, as pictures and attachments are
// described.
func Size(n int) string {
	switch {
	case n < 1024:
		return fmt.Sprintf("%d B", n)
	case n < 1024*1024:
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1024*1024))
}
