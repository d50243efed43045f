package picture_test

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/picture"
)

func pngOf(t *testing.T, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y += 7 {
		for x := 0; x < w; x++ {
			img.Set(x, y, color.RGBA{R: uint8(x), G: uint8(y), B: 200, A: 255})
		}
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestSmallPictureGoesByteForByte(t *testing.T) {
	data := pngOf(t, 40, 30)
	img, info, err := picture.Prepare("shot.png", data)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(img.Data, data) || img.MediaType != "image/png" || info.From != (image.Point{}) || info.Width != 40 {
		t.Fatalf("info %v, %d bytes", info, len(img.Data))
	}
	if got := info.String(); got != "image/png 40×30, "+strings.SplitN(got, ", ", 2)[1] || strings.Contains(got, "scaled") {
		t.Errorf("info %q", got)
	}
}

func TestLargePictureIsScaledToFit(t *testing.T) {
	img, info, err := picture.Prepare("wide.png", pngOf(t, 3200, 1000))
	if err != nil {
		t.Fatal(err)
	}
	cfg, format, err := image.DecodeConfig(bytes.NewReader(img.Data))
	if err != nil {
		t.Fatal(err)
	}
	if format != "png" || cfg.Width != picture.MaxEdge || cfg.Height != 490 || info.From != image.Pt(3200, 1000) {
		t.Fatalf("%s %d×%d, info %v", format, cfg.Width, cfg.Height, info)
	}
	if !strings.Contains(info.String(), "scaled down from 3200×1000") {
		t.Errorf("info %q", info)
	}

	// A photo stays a JPEG.
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, image.NewGray(image.Rect(0, 0, 1000, 2000)), nil); err != nil {
		t.Fatal(err)
	}
	img, _, err = picture.Prepare("tall.jpg", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	cfg, format, _ = image.DecodeConfig(bytes.NewReader(img.Data))
	if img.MediaType != "image/jpeg" || format != "jpeg" || cfg.Height != picture.MaxEdge || cfg.Width != 784 {
		t.Fatalf("%s %s %d×%d", img.MediaType, format, cfg.Width, cfg.Height)
	}
}

func TestWebPIsRead(t *testing.T) {
	// A 1×1 lossless WebP.
	data, _ := base64.StdEncoding.DecodeString("UklGRhoAAABXRUJQVlA4TA0AAAAvAAAAEAcQERGIiP4HAA==")
	img, info, err := picture.Prepare("dot.webp", data)
	if err != nil || img.MediaType != "image/webp" || info.Width != 1 {
		t.Fatalf("%v %v", info, err)
	}
}

func TestNotAPictureIsNamed(t *testing.T) {
	_, _, err := picture.Prepare("notes.png", []byte("just text, named .png"))
	if err == nil || !strings.Contains(err.Error(), "notes.png is not a PNG, JPEG, GIF or WebP picture") {
		t.Fatalf("err %v", err)
	}
	// A header that promises a giant picture is not decoded.
	bomb := pngOf(t, 2, 2)
	copy(bomb[16:24], []byte{0, 0, 0x7f, 0xff, 0, 0, 0x7f, 0xff})
	if _, _, err := picture.Prepare("bomb.png", bomb); err == nil {
		t.Fatal("a 32767×32767 header was decoded")
	}
	if !picture.IsImageName("A/Shot.JPEG") || picture.IsImageName("x.svg") {
		t.Error("IsImageName")
	}
}
