package llm

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
)

// Image is a picture in a message: the person's screenshot, or one a tool
// returned. Data holds the encoded file (PNG, JPEG, GIF or WebP) as it
// goes out; SHA256 names those bytes, so that a store can keep each
// picture once and a message can travel without its bytes (Data nil)
// until they are put back (WithImageData).
type Image struct {
	MediaType string
	SHA256    string
	Data      []byte
}

// mediaTypes are the image formats every wire accepts.
var mediaTypes = []string{"image/png", "image/jpeg", "image/gif", "image/webp"}

// NewImage makes an image part of data, whose format mediaType names.
func NewImage(mediaType string, data []byte) (Image, error) {
	if !SupportedImageType(mediaType) {
		return Image{}, fmt.Errorf("image type %q is not one the models take (png, jpeg, gif, webp)", mediaType)
	}
	if len(data) == 0 {
		return Image{}, errors.New("the image is empty")
	}
	sum := sha256.Sum256(data)
	return Image{MediaType: mediaType, SHA256: hex.EncodeToString(sum[:]), Data: data}, nil
}

// SupportedImageType reports whether the wires take images of this type.
func SupportedImageType(mediaType string) bool {
	for _, t := range mediaTypes {
		if t == mediaType {
			return true
		}
	}
	return false
}

// Base64 is the image's bytes in standard base64, as every wire wants them.
func (i Image) Base64() string { return base64.StdEncoding.EncodeToString(i.Data) }

// DataURL is the image as a data: URL, the form the OpenAI wires take.
func (i Image) DataURL() string { return "data:" + i.MediaType + ";base64," + i.Base64() }

// Images returns the image parts of a message, the tool results' included,
// in order.
func (m Message) Images() []Image {
	var out []Image
	for _, p := range m.Parts {
		switch p := p.(type) {
		case Image:
			out = append(out, p)
		case ToolResult:
			out = append(out, p.Images...)
		}
	}
	return out
}

// WithImageData returns m with every image's Data replaced by what data
// returns for it: nil to strip the bytes (a store keeps them elsewhere), or
// the bytes fetched by hash to put them back. A message without images is
// returned as it is, its encodings memo included; one with images is a new,
// unsealed message.
func (m Message) WithImageData(data func(Image) ([]byte, error)) (Message, error) {
	if !hasImages(m) {
		return m, nil
	}
	out := Message{Role: m.Role, Parts: make([]Part, len(m.Parts))}
	for i, p := range m.Parts {
		switch p := p.(type) {
		case Image:
			b, err := data(p)
			if err != nil {
				return m, err
			}
			p.Data = b
			out.Parts[i] = p
		case ToolResult:
			if len(p.Images) > 0 {
				imgs := make([]Image, len(p.Images))
				for j, img := range p.Images {
					b, err := data(img)
					if err != nil {
						return m, err
					}
					img.Data = b
					imgs[j] = img
				}
				p.Images = imgs
			}
			out.Parts[i] = p
		default:
			out.Parts[i] = p
		}
	}
	return out, nil
}

func hasImages(m Message) bool {
	for _, p := range m.Parts {
		switch p := p.(type) {
		case Image:
			return true
		case ToolResult:
			if len(p.Images) > 0 {
				return true
			}
		}
	}
	return false
}

// wireImage is an image's JSON form in sessions and cassettes. Data may be
// left out when a store keeps the bytes by hash.
type wireImage struct {
	MediaType string `json:"mediaType,omitempty"`
	SHA256    string `json:"sha256,omitempty"`
	Data      []byte `json:"data,omitempty"`
}

func toWireImage(i Image) wireImage {
	return wireImage(i)
}

func wireImages(imgs []Image) []wireImage {
	if len(imgs) == 0 {
		return nil
	}
	out := make([]wireImage, len(imgs))
	for i, img := range imgs {
		out[i] = toWireImage(img)
	}
	return out
}

// image checks what was read: a hash to find the bytes by, and bytes
// that match it when they are there.
func (w wireImage) image() (Image, error) {
	if w.MediaType == "" || w.SHA256 == "" {
		return Image{}, errors.New("an image needs a mediaType and a sha256")
	}
	if len(w.Data) > 0 {
		sum := sha256.Sum256(w.Data)
		if hex.EncodeToString(sum[:]) != w.SHA256 {
			return Image{}, fmt.Errorf("image %s: its data does not match its sha256", w.SHA256)
		}
	}
	return Image(w), nil
}

func fromWireImages(ws []wireImage) ([]Image, error) {
	if len(ws) == 0 {
		return nil, nil
	}
	out := make([]Image, len(ws))
	for i, w := range ws {
		img, err := w.image()
		if err != nil {
			return nil, err
		}
		out[i] = img
	}
	return out, nil
}
