package web

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/strikethrough"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html/charset"

	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// page is a fetched document as text.
type page struct {
	hops []*url.URL
	text string
	// cut reports a body longer than BodyCap, of which only BodyCap bytes
	// were read.
	cut bool
}

// readPage turns a final (non-redirect) response into text: HTML is
// converted to markdown, text passes through in UTF-8, anything binary
// (by its declared type or by its bytes) is refused.
func readPage(ctx context.Context, resp *http.Response, hops []*url.URL) (*page, error) {
	final := hops[len(hops)-1]
	declared, params, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, refusef("%s answered %s", final.Redacted(), resp.Status)
	}
	if binaryType(declared) {
		return nil, refusef("%s is %s, which web_fetch does not read: it reads HTML and text only", final.Redacted(), declared)
	}
	body, cut, err := readCapped(resp.Body, BodyCap)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", final.Redacted(), err)
	}
	sniffed, _, _ := mime.ParseMediaType(http.DetectContentType(body))
	if binaryType(sniffed) {
		return nil, refusef("%s looks like binary data (%s), which web_fetch does not read: it reads HTML and text only", final.Redacted(), sniffed)
	}
	isHTML := declared == "text/html" || declared == "application/xhtml+xml" || (declared == "" && sniffed == "text/html")
	text, err := toUTF8(body, resp.Header.Get("Content-Type"), params["charset"] != "" || isHTML)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", final.Redacted(), err)
	}
	if workspace.IsBinary([]byte(text)) {
		return nil, refusef("%s looks like binary data (it has NUL bytes), which web_fetch does not read", final.Redacted())
	}
	if isHTML {
		if text, err = htmlToMarkdown(ctx, text, final); err != nil {
			return nil, fmt.Errorf("convert the HTML of %s: %w", final.Redacted(), err)
		}
	}
	return &page{hops: hops, text: text, cut: cut}, nil
}

// binaryType reports media types web_fetch refuses to read as text.
func binaryType(mediaType string) bool {
	family, sub, _ := strings.Cut(mediaType, "/")
	switch family {
	case "image", "audio", "video", "font", "model":
		return true
	case "application":
		switch sub {
		case "pdf", "zip", "x-zip-compressed", "gzip", "x-gzip", "x-tar", "x-bzip2", "x-xz", "zstd",
			"x-7z-compressed", "x-rar-compressed", "vnd.rar", "octet-stream", "wasm", "java-archive",
			"x-msdownload", "x-executable", "x-mach-binary", "x-sharedlib", "msword", "x-shockwave-flash",
			"vnd.android.package-archive", "x-apple-diskimage", "x-iso9660-image":
			return true
		}
		return strings.HasPrefix(sub, "vnd.ms-") || strings.HasPrefix(sub, "vnd.openxmlformats-") ||
			strings.HasPrefix(sub, "vnd.oasis.opendocument.")
	}
	return false
}

// readCapped reads at most limit bytes of r, and reports whether there
// was more. It never reads past limit+1 bytes, so an endless or huge body
// costs no more than the cap.
func readCapped(r io.Reader, limit int) (data []byte, cut bool, err error) {
	data, err = io.ReadAll(io.LimitReader(r, int64(limit)+1))
	if err != nil {
		return nil, false, err
	}
	if len(data) > limit {
		return trimPartialRune(data[:limit]), true, nil
	}
	return data, false, nil
}

// trimPartialRune drops an incomplete UTF-8 sequence the cap cut in two,
// so a UTF-8 page is not mistaken for another encoding.
func trimPartialRune(b []byte) []byte {
	for k := 1; k <= utf8.UTFMax && k <= len(b); k++ {
		if utf8.RuneStart(b[len(b)-k]) {
			if !utf8.FullRune(b[len(b)-k:]) {
				return b[:len(b)-k]
			}
			break
		}
	}
	return b
}

// toUTF8 decodes body to valid UTF-8. UTF-8 text with no declared charset
// passes as it is; otherwise the charset comes from a byte-order mark, the
// Content-Type, or (for HTML) a <meta> tag.
func toUTF8(body []byte, contentType string, detect bool) (string, error) {
	if !detect && utf8.Valid(body) {
		return string(body), nil
	}
	r, err := charset.NewReader(bytes.NewReader(body), contentType)
	if err != nil {
		return "", err
	}
	out, err := io.ReadAll(r)
	if err != nil {
		return "", err
	}
	// The detector takes text that is UTF-8 but for a stray byte as UTF-8
	// and passes it through unchanged; mark such bytes instead.
	return strings.ToValidUTF8(string(out), "\uFFFD"), nil
}

// htmlToMarkdown converts a page, resolving relative links against its
// URL. Scripts, styles and the head are dropped by the base plugin.
func htmlToMarkdown(ctx context.Context, html string, final *url.URL) (string, error) {
	conv := converter.NewConverter(converter.WithPlugins(
		base.NewBasePlugin(),
		commonmark.NewCommonmarkPlugin(),
		table.NewTablePlugin(),
		strikethrough.NewStrikethroughPlugin(),
	))
	return conv.ConvertString(html, converter.WithDomain(final.String()), converter.WithContext(ctx))
}

// render is the tool result: the URL (or "start -> final"), a blank line,
// the text cut to limit characters, then notes on what was cut.
func (p *page) render(limit int) string {
	header := p.hops[0].Redacted()
	if len(p.hops) > 1 {
		header += " -> " + p.hops[len(p.hops)-1].Redacted()
	}
	// Leave room for the header and the notes within the result cap.
	budget := tool.ResultCap - utf8.RuneCountInString(header) - 400
	limit = max(min(limit, budget), 0)
	text := strings.TrimSpace(p.text)
	if text == "" {
		text = "(the page has no text)"
	}
	var notes []string
	if n := utf8.RuneCountInString(text); n > limit {
		text = string([]rune(text)[:limit])
		note := fmt.Sprintf("[showing the first %d of %d characters", limit, n)
		if limit < MaxChars {
			note += fmt.Sprintf("; pass a larger maxChars (up to %d) to see more", MaxChars)
		}
		notes = append(notes, note+"]")
	}
	if p.cut {
		notes = append(notes, fmt.Sprintf("[the body is larger than %d KB; only its first %d KB were read]", BodyCap>>10, BodyCap>>10))
	}
	out := header + "\n\n" + text
	if len(notes) > 0 {
		out += "\n\n" + strings.Join(notes, "\n")
	}
	return tool.Cap(out)
}
