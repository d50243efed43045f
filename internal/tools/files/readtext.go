package files

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/picture"
	"github.com/shiro-neko/shiro/internal/tool"
	"github.com/shiro-neko/shiro/internal/tools/internal/fileop"
	"github.com/shiro-neko/shiro/internal/workspace"
)

// Limits of read_file.
const (
	readDefaultLimit = 2000
	readLineCut      = 2000 // characters kept of one line
	readHintRoom     = 120  // bytes kept free for the "continue with offset" note
)

// readRequest is one file to read: its path as given, the first line
// (1-based) and how many lines at most. The schema keeps both at 1 or more.
type readRequest struct {
	Path   string
	Offset *int
	Limit  *int
}

func (r readRequest) window() (offset, limit int) {
	return tool.Or(r.Offset, 1), tool.Or(r.Limit, readDefaultLimit)
}

// readText renders lines offset..offset+limit-1 of a text file as `N: text`,
// stopping early so the output stays within budget bytes, and says where to
// continue when lines remain.
func readText(env *workspace.Env, req readRequest, budget int) (string, error) {
	offset, limit := req.window()
	f, file, err := fileop.Open(env, req.Path)
	if err != nil {
		return "", err
	}
	defer func() { _ = f.Close() }()
	disp, fi := file.Rel, file.Info
	if fi.IsDir() {
		return "", tool.Failf("%s is a directory; use list_dir to see what is in it.", disp)
	}
	if !fi.Mode().IsRegular() {
		// A FIFO or device could block the read forever.
		return "", tool.Failf("%s is not a regular file (%s); only files can be read.", disp, fi.Mode().Type())
	}
	r := bufio.NewReaderSize(f, 64*1024)
	head, err := r.Peek(workspace.BinarySniff)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return "", fmt.Errorf("read %s: %w", disp, err)
	}
	if mt := picture.Sniff(head); mt != "" {
		return "", &pictureFile{rel: disp, mediaType: mt, size: fi.Size()}
	}
	if workspace.IsBinary(head) {
		return "", tool.Failf("%s is a binary file, not text. Use bash (for example `file %s` or `xxd %s | head`) to inspect it.", disp, disp, disp)
	}
	if len(head) == 0 {
		return disp + " is empty.", nil
	}

	budget -= readHintRoom
	var out strings.Builder
	var buf []byte
	lineNo, last := 0, 0
	stoppedByBudget := false
	for {
		keep := 0
		if lineNo+1 >= offset {
			keep = readLineCut * utf8.UTFMax
		}
		line, runes, ok, err := nextLine(r, keep, buf[:0])
		if err != nil {
			return "", fmt.Errorf("read %s: %w", disp, err)
		}
		if !ok {
			break
		}
		buf = line
		lineNo++
		if lineNo < offset {
			continue
		}
		text := renderLine(lineNo, line, runes)
		if out.Len() > 0 && out.Len()+len(text)+1 > budget {
			stoppedByBudget = true
			lineNo-- // this line was read but not shown
			break
		}
		if out.Len() > 0 {
			out.WriteByte('\n')
		}
		out.WriteString(text)
		last = lineNo
		if lineNo-offset+1 >= limit {
			break
		}
	}
	if last == 0 {
		return "", tool.Failf("offset %d is past the end of %s (%d lines).", offset, disp, lineNo)
	}
	rest, err := linesLeft(r, stoppedByBudget)
	if err != nil {
		return "", fmt.Errorf("read %s: %w", disp, err)
	}
	if rest == 0 {
		return exactString(&out), nil
	}
	total := last + rest
	why := ""
	if stoppedByBudget {
		why = "; the output limit was reached"
	}
	fmt.Fprintf(&out, "\n\n[showing lines %d-%d of %d%s. Continue with offset=%d.]", offset, last, total, why, last+1)
	return exactString(&out), nil
}

// exactString is what b built, in an array of its own length when b grew
// well past it: the result stays in the history for the whole session,
// and a builder that doubled its way there keeps up to as much again of
// unused room (about 7 KB of every 33 KB read in the 50-step memory test).
func exactString(b *strings.Builder) string {
	if b.Cap()-b.Len() > b.Len()/8 {
		return strings.Clone(b.String())
	}
	return b.String()
}

// renderLine formats one line as `N: text`, cutting it at readLineCut
// characters with a note of its full length.
func renderLine(n int, line []byte, runes int) string {
	text := line
	cut := runes > readLineCut
	if cut {
		i, k := 0, 0
		for k < readLineCut && i < len(text) {
			_, size := utf8.DecodeRune(text[i:])
			i += size
			k++
		}
		text = text[:i]
	}
	s := strconv.Itoa(n) + ": " + strings.ToValidUTF8(string(text), "\uFFFD")
	if cut {
		s += fmt.Sprintf(" … [line cut at %d of %d chars]", readLineCut, runes)
	}
	return s
}

// nextLine reads one line from r, keeping at most keep bytes of it in dst
// (without its line ending) and counting all of its characters, so a
// gigantic line costs no memory. ok is false at the end of the input.
func nextLine(r *bufio.Reader, keep int, dst []byte) (line []byte, runes int, ok bool, err error) {
	var tail [2]byte // the last two bytes of the whole line, for its ending
	for {
		chunk, rerr := r.ReadSlice('\n')
		if len(chunk) > 0 {
			ok = true
			if room := keep - len(dst); room > 0 {
				dst = append(dst, chunk[:min(room, len(chunk))]...)
			}
			runes += utf8.RuneCount(chunk)
			if len(chunk) >= 2 {
				tail = [2]byte{chunk[len(chunk)-2], chunk[len(chunk)-1]}
			} else {
				tail = [2]byte{tail[1], chunk[0]}
			}
		}
		if errors.Is(rerr, bufio.ErrBufferFull) {
			continue
		}
		if rerr != nil && !errors.Is(rerr, io.EOF) {
			return dst, runes, ok, rerr
		}
		break
	}
	ending := 0
	if tail[1] == '\n' {
		ending = 1
		if tail[0] == '\r' {
			ending = 2
		}
	}
	runes -= ending
	// dst holds the start of the line, and its ending too when the line
	// was short enough to keep whole.
	if n := len(dst); n > 0 && dst[n-1] == '\n' {
		dst = dst[:n-1]
		if n := len(dst); ending == 2 && n > 0 && dst[n-1] == '\r' {
			dst = dst[:n-1]
		}
	}
	return dst, runes, ok, nil
}

// linesLeft counts the lines left in r. pending says one line was already
// read but not shown, and counts it.
func linesLeft(r *bufio.Reader, pending bool) (int, error) {
	n := 0
	if pending {
		n = 1
	}
	buf := make([]byte, 64*1024)
	lastNL := true
	seen := false
	for {
		k, err := r.Read(buf)
		if k > 0 {
			seen = true
			n += bytes.Count(buf[:k], []byte{'\n'})
			lastNL = buf[k-1] == '\n'
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if seen && !lastNL {
		n++ // a last line without a newline
	}
	return n, nil
}
