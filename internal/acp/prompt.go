package acp

import (
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/coder/acp-go-sdk"

	"github.com/shiro-neko/shiro/internal/picture"
	"github.com/shiro-neko/shiro/internal/protocol"
)

// promptContent turns a prompt's content blocks into the text of one
// user turn and its pictures. Text is kept as written. A resource link or
// an embedded resource becomes an @reference where the client put it; the
// text of an embedded resource follows the message as a quoted block under
// its reference, so the model reads the question first and the material
// after. Image blocks go with the turn as pictures (scaled down when
// larger than a model reads).
func promptContent(blocks []acp.ContentBlock, cwd string) (string, []protocol.Image, error) {
	var p promptBuilder
	var images []protocol.Image
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			p.text(b.Text.Text)
		case b.ResourceLink != nil:
			p.ref(linkRef(b.ResourceLink, cwd))
		case b.Resource != nil:
			ref, block := embedded(b.Resource.Resource, cwd)
			p.ref(ref)
			p.attached.WriteString("\n\n" + block)
		case b.Image != nil:
			img, err := imageOf(b.Image)
			if err != nil {
				return "", nil, fmt.Errorf("block %d: %w", i, err)
			}
			images = append(images, img)
		case b.Audio != nil:
			return "", nil, fmt.Errorf("block %d is audio: shiro takes text, images, resource links and embedded resources (initialize said audio: false)", i)
		default:
			return "", nil, fmt.Errorf("block %d has no content shiro knows", i)
		}
	}
	text := strings.TrimSpace(p.body.String() + p.attached.String())
	if text == "" && len(images) == 0 {
		return "", nil, errors.New("the prompt has no text")
	}
	return text, images, nil
}

// imageOf reads an image block: base64 data in a format the models take.
func imageOf(b *acp.ContentBlockImage) (protocol.Image, error) {
	data, err := base64.StdEncoding.DecodeString(b.Data)
	if err != nil {
		return protocol.Image{}, fmt.Errorf("the image's data is not base64: %w", err)
	}
	name := "image"
	if b.Uri != nil && *b.Uri != "" {
		name = *b.Uri
	}
	img, _, err := picture.Prepare(name, data)
	if err != nil {
		return protocol.Image{}, err
	}
	if img.MediaType != b.MimeType {
		// The bytes decide; a client that mislabels them is not refused.
		name += " (sent as " + b.MimeType + ")"
	}
	return protocol.Image{MediaType: img.MediaType, Data: img.Data, Name: name}, nil
}

// promptBuilder keeps references apart from the words around them.
type promptBuilder struct {
	body, attached strings.Builder
	afterRef       bool
}

func (p *promptBuilder) text(s string) {
	if p.afterRef {
		if r, _ := utf8.DecodeRuneInString(s); s != "" && !unicode.IsSpace(r) && !unicode.IsPunct(r) {
			p.body.WriteByte(' ')
		}
	}
	p.body.WriteString(s)
	p.afterRef = false
}

func (p *promptBuilder) ref(ref string) {
	if s := p.body.String(); s != "" {
		if r, _ := utf8.DecodeLastRuneInString(s); !unicode.IsSpace(r) {
			p.body.WriteByte(' ')
		}
	}
	p.body.WriteString("@" + ref)
	p.afterRef = true
}

// linkRef names a linked resource: a workspace path for a file, else its URI.
func linkRef(l *acp.ContentBlockResourceLink, cwd string) string {
	if p, ok := filePath(l.Uri, cwd); ok {
		return p
	}
	return l.Uri
}

// embedded names an embedded resource and quotes its text. Binary content
// is named, not included.
func embedded(r acp.EmbeddedResourceResource, cwd string) (ref, block string) {
	switch {
	case r.TextResourceContents != nil:
		ref = resourceRef(r.TextResourceContents.Uri, cwd)
		return ref, ref + ":\n" + verbatim(r.TextResourceContents.Text)
	case r.BlobResourceContents != nil:
		ref = resourceRef(r.BlobResourceContents.Uri, cwd)
		mime := "binary"
		if m := r.BlobResourceContents.MimeType; m != nil && *m != "" {
			mime = *m
		}
		return ref, fmt.Sprintf("%s: %s content, not included", ref, mime)
	}
	return "resource", "resource: empty"
}

func resourceRef(uri, cwd string) string {
	if p, ok := filePath(uri, cwd); ok {
		return p
	}
	return uri
}

// filePath reads a file: URI as a path, relative to the workspace when it
// lies inside it. A fragment (a line range) is kept.
func filePath(uri, cwd string) (string, bool) {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return "", false
	}
	p := filepath.FromSlash(u.Path)
	if rel, err := filepath.Rel(cwd, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		p = rel
	}
	if u.Fragment != "" {
		p += "#" + u.Fragment
	}
	return p, true
}
