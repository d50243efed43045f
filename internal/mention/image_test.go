package mention_test

import (
	"bytes"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/mention"
	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func tinyPNG(t *testing.T, w, h int) string {
	t.Helper()
	var buf bytes.Buffer
	if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// @shot.png attaches the picture as an image part (not "binary, not
// attached"), and the text says which file it was; a .png that is not a
// picture is named and left out.
func TestAttachPicture(t *testing.T) {
	shot := tinyPNG(t, 20, 10)
	env := wstest.Env(t, map[string]string{
		"shots/shot.png": shot,
		"fake.png":       "I am text",
	})
	text, images, added := mention.Attach(env, "why is @shots/shot.png broken? and @fake.png")
	if len(images) != 1 || !bytes.Equal(images[0].Data, []byte(shot)) || images[0].MediaType != "image/png" {
		t.Fatalf("images %+v", images)
	}
	if !strings.Contains(text, "=== shots/shot.png (attached as an image: image/png 20×10,") {
		t.Errorf("text does not name the picture:\n%s", text)
	}
	if !strings.Contains(text, "=== fake.png (not attached: fake.png is not a PNG, JPEG, GIF or WebP picture") {
		t.Errorf("text does not say the fake was left out:\n%s", text)
	}
	if len(added) != 2 || !strings.HasPrefix(added[0], "shots/shot.png (image, ") || added[1] != "fake.png (not a picture, not attached)" {
		t.Errorf("added %q", added)
	}
}

// A message attaches at most mention.Images pictures.
func TestAttachCapsPictures(t *testing.T) {
	files := map[string]string{}
	var b strings.Builder
	for i := range mention.Images + 2 {
		name := string(rune('a'+i)) + ".png"
		files[name] = tinyPNG(t, i+1, 1)
		b.WriteString(" @" + name)
	}
	env := wstest.Env(t, files)
	text, images, _ := mention.Attach(env, b.String())
	if len(images) != mention.Images || strings.Count(text, "a message takes at most") != 2 {
		t.Fatalf("%d images\n%s", len(images), text)
	}
}
