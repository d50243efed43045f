package llmtest

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// SentImage is one picture found in a recorded request body, whatever the
// wire: its media type, its decoded bytes, and Where it sat, as a path
// into the body ("messages[0].content[1]"), so that a test can tell an
// image in a user message from one inside a tool result.
type SentImage struct {
	Where     string
	MediaType string
	Data      []byte
}

// Images decodes every image block of the body, in document order: an
// Anthropic image block with a base64 source, a chat completions
// image_url part or a Responses input_image, each with the picture inline
// as a data: URL. An image block this fake cannot decode is an error:
// a test should see that the bytes sent were not a picture.
func (r Request) Images() ([]SentImage, error) {
	var body any
	if err := json.Unmarshal(r.Body, &body); err != nil {
		return nil, fmt.Errorf("request body to %s is not JSON: %w", r.Path, err)
	}
	var out []SentImage
	err := walkImages(body, "", &out)
	return out, err
}

func walkImages(v any, where string, out *[]SentImage) error {
	switch v := v.(type) {
	case []any:
		for i, e := range v {
			if err := walkImages(e, fmt.Sprintf("%s[%d]", where, i), out); err != nil {
				return err
			}
		}
	case map[string]any:
		img, isImage, err := imageBlock(v)
		if err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
		if isImage {
			img.Where = where
			*out = append(*out, img)
			return nil
		}
		// Keys in order, so that images come out in a stable order.
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if err := walkImages(v[k], strings.TrimPrefix(where+"."+k, "."), out); err != nil {
				return err
			}
		}
	}
	return nil
}

// imageBlock reads an object that is an image block on one of the wires.
func imageBlock(v map[string]any) (SentImage, bool, error) {
	switch v["type"] {
	case "image": // Anthropic
		src, _ := v["source"].(map[string]any)
		if src == nil || src["type"] != "base64" {
			return SentImage{}, true, fmt.Errorf("image block without a base64 source: %v", v)
		}
		mt, _ := src["media_type"].(string)
		data, err := base64.StdEncoding.DecodeString(fmt.Sprint(src["data"]))
		if err != nil {
			return SentImage{}, true, fmt.Errorf("image block data is not base64: %w", err)
		}
		return SentImage{MediaType: mt, Data: data}, true, nil
	case "image_url": // chat completions
		u, _ := v["image_url"].(map[string]any)
		if u == nil {
			return SentImage{}, true, fmt.Errorf("image_url part without its image_url: %v", v)
		}
		return dataURL(fmt.Sprint(u["url"]))
	case "input_image": // Responses
		return dataURL(fmt.Sprint(v["image_url"]))
	}
	return SentImage{}, false, nil
}

func dataURL(u string) (SentImage, bool, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	mt, b64, ok2 := strings.Cut(rest, ";base64,")
	if !ok || !ok2 {
		return SentImage{}, true, fmt.Errorf("image URL is not a base64 data: URL: %.60q", u)
	}
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return SentImage{}, true, fmt.Errorf("image URL data is not base64: %w", err)
	}
	return SentImage{MediaType: mt, Data: data}, true, nil
}
