package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/llm"
)

// exportResultLines is how many lines of a tool's output a Markdown
// export shows; the JSON export keeps everything.
const exportResultLines = 30

// ExportJSON writes a session and its entries as one indented JSON
// object: {"session": …, "entries": […]}, messages in the form the store
// keeps them.
//
// Pictures are written once, under "images" by their sha256, as the store
// keeps them; the messages name them by hash.
func ExportJSON(w io.Writer, sess Session, entries []Entry) error {
	out := make([]Entry, 0, len(entries))
	images := map[string]exportImage{}
	keep := func(msgs []llm.Message) ([]llm.Message, error) {
		stripped, imgs, err := stripAll(msgs)
		for _, img := range imgs {
			images[img.SHA256] = exportImage{MediaType: img.MediaType, Data: img.Data}
		}
		return stripped, err
	}
	for _, e := range entries {
		if e.Message != nil {
			msgs, err := keep([]llm.Message{*e.Message})
			if err != nil {
				return err
			}
			e.Message = &msgs[0]
		}
		if e.Marker != nil {
			m := *e.Marker
			var err error
			if m.History, err = keep(m.History); err != nil {
				return err
			}
			e.Marker = &m
		}
		out = append(out, e)
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Session Session                `json:"session"`
		Entries []Entry                `json:"entries"`
		Images  map[string]exportImage `json:"images,omitempty"`
	}{sess, out, images})
}

// exportImage is one picture of a JSON export.
type exportImage struct {
	MediaType string `json:"mediaType"`
	Data      []byte `json:"data"`
}

// imageLines names a message's pictures for the Markdown export.
func imageLines(b *strings.Builder, images []llm.Image) {
	for _, img := range images {
		fmt.Fprintf(b, "\n*[image: %s, %d bytes, sha256 %.12s]*\n", img.MediaType, len(img.Data), img.SHA256)
	}
}

// ExportMarkdown writes a transcript a person can read, or paste into a
// pull request: the prompts, the answers, each tool call with the start
// of its result folded under it, and a line where the history was
// cleared or compacted.
func ExportMarkdown(w io.Writer, sess Session, entries []Entry) error {
	var b strings.Builder
	title := sess.Title
	if title == "" {
		title = "Untitled session"
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	fmt.Fprintf(&b, "- Session: `%s`\n- Directory: `%s`\n", sess.ID, sess.Cwd)
	if sess.Model != "" {
		fmt.Fprintf(&b, "- Model: %s\n", strings.TrimPrefix(sess.Provider+" / "+sess.Model, " / "))
	}
	fmt.Fprintf(&b, "- Started %s, last step %s\n", stamp(sess.Created), stamp(sess.Updated))
	if u := sess.Usage; u != (llm.Usage{}) {
		fmt.Fprintf(&b, "- Tokens: %d in, %d out, %d cache read, %d cache written\n", u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens)
	}
	results := pairResults(entries)
	for i, e := range entries {
		switch {
		case e.Marker != nil:
			b.WriteString("\n---\n\n")
			b.WriteString(markerLine(*e.Marker))
			b.WriteString("\n")
		case e.Message != nil:
			writeMessage(&b, i, *e.Message, results)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// markerLine says in words what a marker did.
func markerLine(m Marker) string {
	switch m.Kind {
	case MarkCleared:
		return "*The conversation was cleared here; it starts over below.*"
	case MarkCompacted:
		if m.Summary == "" {
			return fmt.Sprintf("*The history above was compacted here into %d messages.*", len(m.History))
		}
		return fmt.Sprintf("*The history above was compacted here: %d earlier messages were replaced, for the model, by this summary (the first prompt and the latest exchanges were kept as they were):*\n\n%s",
			m.Summarized, quote(m.Summary))
	}
	return fmt.Sprintf("*The history was replaced here by %d messages.*", len(m.History))
}

// quote makes text a markdown block quote.
func quote(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("> "+l, " ")
	}
	return strings.Join(lines, "\n")
}

// callKey names one tool call of an export: its entry and its part.
type callKey struct{ entry, part int }

// pairResults pairs every tool call with its result: a result answers the
// first call with its id, not yet answered, of the latest assistant
// message (a history's results follow their calls at once). Pairing by id
// over the whole session would hand every "call_0" the last result of
// that id, as sessions stored before shiro named calls itself have them:
// an endpoint that numbers calls per response repeats ids.
func pairResults(entries []Entry) map[callKey]llm.ToolResult {
	out := map[callKey]llm.ToolResult{}
	var open map[string][]callKey
	for i, e := range entries {
		if e.Message == nil {
			open = nil
			continue
		}
		switch e.Message.Role {
		case llm.RoleAssistant:
			open = map[string][]callKey{}
			for j, p := range e.Message.Parts {
				if c, ok := p.(llm.ToolCall); ok {
					open[c.ID] = append(open[c.ID], callKey{i, j})
				}
			}
		case llm.RoleTool:
			for _, p := range e.Message.Parts {
				r, ok := p.(llm.ToolResult)
				if !ok || len(open[r.CallID]) == 0 {
					continue
				}
				out[open[r.CallID][0]] = r
				open[r.CallID] = open[r.CallID][1:]
			}
		}
	}
	return out
}

// writeMessage renders one message; tool results are shown under their
// calls, so tool messages add nothing of their own.
func writeMessage(b *strings.Builder, entry int, m llm.Message, results map[callKey]llm.ToolResult) {
	switch m.Role {
	case llm.RoleUser:
		fmt.Fprintf(b, "\n## You\n\n%s\n", strings.TrimSpace(m.PlainText()))
		imageLines(b, m.Images())
	case llm.RoleAssistant:
		b.WriteString("\n## shiro\n")
		for j, p := range m.Parts {
			switch p := p.(type) {
			case llm.Text:
				if t := strings.TrimSpace(p.Text); t != "" {
					fmt.Fprintf(b, "\n%s\n", t)
				}
			case llm.ToolCall:
				writeCall(b, p, results, callKey{entry, j})
			}
		}
	}
}

func writeCall(b *strings.Builder, c llm.ToolCall, results map[callKey]llm.ToolResult, key callKey) {
	fmt.Fprintf(b, "\n**%s**\n\n", c.Name)
	writeFenced(b, "json", prettyJSON(c.Input))
	r, ok := results[key]
	if !ok {
		b.WriteString("\n*No result was stored (the step was cut off).*\n")
		return
	}
	label := "Result"
	if r.IsError {
		label = "Error"
	}
	out, more := headLines(r.Output, exportResultLines)
	if more > 0 {
		label += fmt.Sprintf(" (first %d lines of %d)", exportResultLines, exportResultLines+more)
	}
	fmt.Fprintf(b, "\n<details><summary>%s</summary>\n\n", label)
	writeFenced(b, "", out)
	imageLines(b, r.Images)
	b.WriteString("\n</details>\n")
}

// prettyJSON indents a call's input for people. It is decoded and written
// again, so that what the stored form escapes (& and > as \u0026 and
// \u003e) reads as written; numbers keep every digit.
func prettyJSON(raw json.RawMessage) string {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return string(raw)
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if enc.Encode(v) != nil {
		return string(raw)
	}
	return strings.TrimRight(b.String(), "\n")
}

// writeFenced writes text in a code fence longer than any run of
// backticks inside it, so the text cannot close the fence early.
func writeFenced(b *strings.Builder, lang, text string) {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	fmt.Fprintf(b, "%s%s\n%s\n%s\n", fence, lang, strings.TrimRight(text, "\n"), fence)
}

// headLines returns the first n lines of s and how many lines were left.
func headLines(s string, n int) (string, int) {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) <= n {
		return strings.Join(lines, "\n"), 0
	}
	return strings.Join(lines[:n], "\n"), len(lines) - n
}

// stamp formats a time for people, in the local zone.
func stamp(t time.Time) string { return t.Local().Format("2006-01-02 15:04") }
