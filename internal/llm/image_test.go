package llm_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/llm"
)

func TestImagePartsRoundTripAndStripByHash(t *testing.T) {
	shot, err := llm.NewImage("image/png", []byte("png bytes"))
	if err != nil {
		t.Fatal(err)
	}
	m := llm.Message{Role: llm.RoleTool, Parts: []llm.Part{
		shot,
		llm.ToolResult{CallID: "c", Name: "read_file", Output: "x.png", Images: []llm.Image{shot}},
	}}.Sealed()
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var back llm.Message
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if imgs := back.Images(); len(imgs) != 2 || !bytes.Equal(imgs[0].Data, shot.Data) || imgs[1].SHA256 != shot.SHA256 {
		t.Fatalf("round trip: %+v", imgs)
	}

	stripped, err := m.WithImageData(func(llm.Image) ([]byte, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	if stripped.IsSealed() {
		t.Error("a message with new parts kept the memo of the old ones")
	}
	b, _ = json.Marshal(stripped)
	if bytes.Contains(b, []byte(shot.Base64())) || !bytes.Contains(b, []byte(shot.SHA256)) {
		t.Fatalf("stripped message still holds the bytes, or lost the hash: %s", b)
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	filled, err := back.WithImageData(func(img llm.Image) ([]byte, error) {
		if img.SHA256 != shot.SHA256 {
			return nil, errors.New("unknown blob")
		}
		return shot.Data, nil
	})
	if err != nil || !bytes.Equal(filled.Images()[1].Data, shot.Data) {
		t.Fatalf("filled %+v, err %v", filled.Images(), err)
	}
}

func TestImageWhoseBytesDoNotMatchItsHashIsRefused(t *testing.T) {
	shot, _ := llm.NewImage("image/png", []byte("png bytes"))
	b, _ := json.Marshal(llm.Message{Role: llm.RoleUser, Parts: []llm.Part{shot}})
	bad := strings.Replace(string(b), shot.SHA256, strings.Repeat("0", 64), 1)
	var m llm.Message
	if err := json.Unmarshal([]byte(bad), &m); err == nil || !strings.Contains(err.Error(), "does not match its sha256") {
		t.Fatalf("err %v", err)
	}
	if _, err := llm.NewImage("image/tiff", []byte("x")); err == nil || !strings.Contains(err.Error(), "png, jpeg, gif, webp") {
		t.Fatalf("tiff: %v", err)
	}
}
