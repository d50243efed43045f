package mention

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/llm"
	"github.com/shiro-neko/shiro/internal/picture"
	"github.com/shiro-neko/shiro/internal/prose"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Limits on what @path attaches to one message.
const (
	// FileBytes is the most of one file attached; a longer file is cut
	// and the model told so (it can read the rest with the read tools).
	FileBytes = 64 << 10
	// TotalBytes is the most all attachments of one message add.
	TotalBytes = 256 << 10
	// DirEntries is the most entries a directory's listing shows.
	DirEntries = 200
	// Images is the most pictures one message attaches.
	Images = 8
)

// attachHeader opens the attachments the model reads after the message.
const attachHeader = "The user attached these with @ (their content as of this message):"

// Refs returns the @path words of text: a word that starts with @ at the
// start of the text or after white space, with trailing punctuation left
// off. Whether one names a file is for Attach to find out.
func Refs(text string) []string {
	var out []string
	for _, word := range strings.Fields(text) {
		if !strings.HasPrefix(word, "@") || len(word) < 2 {
			continue
		}
		ref := strings.TrimRight(word[1:], ".,;:!?)]}\"'")
		if ref != "" && !contains(out, ref) {
			out = append(out, ref)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Attach returns text with the workspace files and directories it names
// with @path attached after it, the pictures it names (@shot.png) as
// image parts, and one line per attachment saying what was added
// ("src/main.go (3.2 KB)"). An @word that names nothing in the workspace
// (a mention of a person, an e-mail handle) is left as it is. Files are
// read through the jail; pictures are scaled down to what a model reads;
// other binary files are named, not attached.
func Attach(env *workspace.Env, text string) (string, []llm.Image, []string) {
	var b strings.Builder
	var added []string
	var images []llm.Image
	budget := TotalBytes
	for _, ref := range Refs(text) {
		abs, err := env.Resolve(ref)
		if err != nil {
			continue
		}
		rel := env.Rel(abs)
		fi, err := env.Stat(rel)
		if err != nil {
			continue
		}
		var part, what string
		if fi.IsDir() {
			part, what = listDir(env, rel)
		} else if fi.Mode().IsRegular() && picture.IsImageName(rel) {
			var img *llm.Image
			img, part, what = readPicture(env, rel, fi.Size(), len(images))
			if img != nil {
				images = append(images, *img)
			}
		} else if fi.Mode().IsRegular() {
			part, what = readFile(env, rel, min(FileBytes, budget))
		} else {
			continue
		}
		if part == "" {
			continue
		}
		budget -= len(part)
		b.WriteString("\n\n" + part)
		added = append(added, what)
		if budget <= 0 {
			b.WriteString("\n\n[No more attachments: the limit for one message was reached.]")
			break
		}
	}
	if len(added) == 0 {
		return text, nil, nil
	}
	return text + "\n\n" + attachHeader + b.String(), images, added
}

// readPicture attaches one picture as an image part, with a line in the
// text that says which file it is; a file that is not a picture after
// all, or one too many, is named and not attached. have is how many
// pictures the message has so far.
func readPicture(env *workspace.Env, rel string, bytes int64, have int) (img *llm.Image, part, what string) {
	if have >= Images {
		return nil, fmt.Sprintf("=== %s (image: not attached, a message takes at most %d) ===", rel, Images),
			rel + " (image, not attached: too many)"
	}
	if bytes > picture.MaxFileBytes {
		return nil, fmt.Sprintf("=== %s (image of %s: too large, not attached) ===", rel, picture.Size(int(bytes))),
			rel + " (image, too large, not attached)"
	}
	data, err := env.ReadFile(rel)
	if err != nil {
		return nil, "", ""
	}
	got, info, err := picture.Prepare(rel, data)
	if err != nil {
		return nil, fmt.Sprintf("=== %s (not attached: %v) ===", rel, err), rel + " (not a picture, not attached)"
	}
	return &got, fmt.Sprintf("=== %s (attached as an image: %s) ===", rel, info), fmt.Sprintf("%s (image, %s)", rel, picture.Size(info.Bytes))
}

// Split undoes Attach: the text as typed, and the names of what was
// attached ("src/main.go", "src/"). Text Attach added nothing to comes
// back as it is.
func Split(expanded string) (typed string, attached []string) {
	typed, parts, ok := strings.Cut(expanded, "\n\n"+attachHeader)
	if !ok {
		return expanded, nil
	}
	for _, part := range strings.Split(parts, "\n\n=== ")[1:] {
		head, _, _ := strings.Cut(part, "\n")
		head = strings.TrimSuffix(head, " ===")
		if i := strings.LastIndex(head, " ("); i > 0 {
			attached = append(attached, head[:i])
		}
	}
	return typed, attached
}

// readFile attaches one file, cut at limit bytes.
func readFile(env *workspace.Env, rel string, limit int) (part, what string) {
	data, err := env.ReadFile(rel)
	if err != nil {
		return "", ""
	}
	if workspace.IsBinary(data) {
		return fmt.Sprintf("=== %s (binary, %s: not attached) ===", rel, picture.Size(len(data))), rel + " (binary, not attached)"
	}
	body := string(data)
	note := ""
	cut := len(body) > limit
	if cut {
		end := limit
		for end > 0 && !utf8.RuneStart(body[end]) {
			end--
		}
		body = body[:end]
		note = fmt.Sprintf("\n[Cut at %s: read the rest with the read tools.]", sizeOf(end, len(data)))
	}
	lines := strings.Count(body, "\n")
	if !strings.HasSuffix(body, "\n") && body != "" {
		lines++
	}
	// The notice says what the model got, not how big the file is: a
	// cut file is the case where the two differ and the person needs to
	// know.
	what = fmt.Sprintf("%s (%d %s, %s)", rel, lines, prose.Plural(lines, "line", "lines"), picture.Size(len(body)))
	if cut {
		what = fmt.Sprintf("%s (cut: %d %s, %s sent)", rel, lines, prose.Plural(lines, "line", "lines"), sizeOf(len(body), len(data)))
	}
	return fmt.Sprintf("=== %s (%d lines) ===\n%s%s", rel, lines, strings.TrimRight(body, "\n"), note), what
}

// sizeOf writes "part of whole" briefly, in bytes when the brief sizes
// would read the same.
func sizeOf(part, whole int) string {
	if picture.Size(part) == picture.Size(whole) {
		return fmt.Sprintf("%d of %d B", part, whole)
	}
	return picture.Size(part) + " of " + picture.Size(whole)
}

// listDir attaches a directory's visible entries, one level deep.
func listDir(env *workspace.Env, rel string) (part, what string) {
	var comps []string
	var rules *workspace.IgnoreRules
	// A read-only folder outside the workspace (an absolute name) has no
	// ignore rules of the workspace's.
	if !strings.HasPrefix(rel, "/") {
		if rel != "." {
			comps = strings.Split(rel, "/")
		}
		rules = workspace.RulesAlong(env.Root, comps)
	}
	entries, hidden, err := env.ReadDirVisible(rel, comps, rules)
	if err != nil {
		return "", ""
	}
	var lines []string
	for i, e := range entries {
		if i == DirEntries {
			lines = append(lines, fmt.Sprintf("… and %d more", len(entries)-DirEntries))
			break
		}
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		lines = append(lines, name)
	}
	if hidden > 0 {
		lines = append(lines, fmt.Sprintf("(%d entries hidden by ignore rules)", hidden))
	}
	return fmt.Sprintf("=== %s/ (directory, %d entries) ===\n%s", rel, len(entries), strings.Join(lines, "\n")),
		fmt.Sprintf("%s/ (%d entries)", rel, len(entries))
}
