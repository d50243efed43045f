package files

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/picture"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func pngFile(t *testing.T, w, h int) string {
	t.Helper()
	var buf bytes.Buffer
	img := image.NewGray(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = uint8(i * 7)
	}
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// read_file on a picture returns it as an image (not "binary file"): small
// ones byte for byte, large ones scaled to picture.MaxEdge. read_many_files
// names a picture and sends the model to read_file.
func TestReadFileReturnsPictures(t *testing.T) {
	small, large := pngFile(t, 40, 30), pngFile(t, 2400, 1200)
	env := wstest.Env(t, map[string]string{"shot.png": small, "big.png": large, "fake.png": "just text"})
	res, err := family.Call(t, env, "read_file", map[string]any{"path": "shot.png"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Images) != 1 || !bytes.Equal(res.Images[0].Data, []byte(small)) || res.Images[0].MediaType != "image/png" {
		t.Fatalf("images %+v", res.Images)
	}
	if !strings.HasPrefix(res.Output, "shot.png: image/png 40×30, ") {
		t.Errorf("output %q", res.Output)
	}

	res, err = family.Call(t, env, "read_file", map[string]any{"path": "big.png"})
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(res.Images[0].Data))
	if err != nil || cfg.Width != picture.MaxEdge || cfg.Height != picture.MaxEdge/2 {
		t.Fatalf("scaled to %d×%d (%v)", cfg.Width, cfg.Height, err)
	}
	if !strings.Contains(res.Output, "scaled down from 2400×1200") {
		t.Errorf("output %q", res.Output)
	}

	// A .png that holds text is read as text.
	if out := family.Ok(t, env, "read_file", map[string]any{"path": "fake.png"}); out != "1: just text" {
		t.Errorf("fake.png: %q", out)
	}
	out := family.Ok(t, env, "read_many_files", map[string]any{"files": []map[string]any{{"path": "shot.png"}}})
	if !strings.Contains(out, "shot.png is a picture (image/png), not text: read it alone with read_file to see it.") {
		t.Errorf("read_many_files: %q", out)
	}
}
