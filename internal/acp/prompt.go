package acp

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/coder/acp-go-sdk"
)

// promptText turns a prompt's content blocks into the text of one user
// turn. Text is kept as written. A resource link or an embedded resource
// becomes an @reference where the client put it; the text of an embedded
// resource follows the message as a quoted block under its reference, so
// the model reads the question first and the material after.
func promptText(blocks []acp.ContentBlock, cwd string) (string, error) {
	var p promptBuilder
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
			return "", fmt.Errorf("block %d is an image: shiro takes text, resource links and embedded resources (initialize said image: false)", i)
		case b.Audio != nil:
			return "", fmt.Errorf("block %d is audio: shiro takes text, resource links and embedded resources (initialize said audio: false)", i)
		default:
			return "", fmt.Errorf("block %d has no content shiro knows", i)
		}
	}
	text := strings.TrimSpace(p.body.String() + p.attached.String())
	if text == "" {
		return "", errors.New("the prompt has no text")
	}
	return text, nil
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
