package search

import (
	"container/heap"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/shiro-neko/shiro/internal/secrets"
)

// grepHit is one matching line.
type grepHit struct {
	path string
	line int
	text string
}

// hitCollector keeps the first grepMaxHits hits in path order, whatever
// order they arrive in, and counts all of them. Ordering by path (the order
// of the walk: a directory's entries before the next sibling) makes the
// result the same on every run and for both backends, which parallel
// searching alone would not.
type hitCollector struct {
	mu     sync.Mutex
	kept   hitHeap
	total  int
	capped bool // some file reached grepPerFile
	// withheld counts files whose matches were dropped because they hold
	// secrets (secrets.IsFile).
	withheld map[string]bool
}

func newHitCollector() *hitCollector { return &hitCollector{} }

// add records a hit on line of path; raw is the line, turned into text
// only if the hit is kept.
func (c *hitCollector) add(path string, line int, raw []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if secrets.IsFile(path) {
		if c.withheld == nil {
			c.withheld = map[string]bool{}
		}
		c.withheld[path] = true
		return
	}
	c.total++
	if len(c.kept) < grepMaxHits {
		heap.Push(&c.kept, grepHit{path, line, hitText(raw)})
		return
	}
	if hitBefore(path, line, c.kept[0].path, c.kept[0].line) {
		c.kept[0] = grepHit{path, line, hitText(raw)}
		heap.Fix(&c.kept, 0)
	}
}

// markCapped records that the file at path reached grepPerFile matching
// lines. A secret file's lines are all withheld, so none were cut.
func (c *hitCollector) markCapped(path string) {
	if secrets.IsFile(path) {
		return
	}
	c.mu.Lock()
	c.capped = true
	c.mu.Unlock()
}

func (c *hitCollector) render() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.total == 0 {
		return "No matches." + c.withheldNote()
	}
	hits := make([]grepHit, len(c.kept))
	for i := len(hits) - 1; i >= 0; i-- {
		hits[i] = heap.Pop(&c.kept).(grepHit)
	}
	var b strings.Builder
	for _, h := range hits {
		fmt.Fprintf(&b, "%s:%d: %s\n", h.path, h.line, h.text)
	}
	switch {
	case c.total > len(hits):
		count := fmt.Sprint(c.total)
		if c.capped {
			count = "at least " + count
		}
		fmt.Fprintf(&b, "[%d of %s matching lines shown; narrow the pattern or set include]", len(hits), count)
	case c.capped:
		fmt.Fprintf(&b, "[a file has more than %d matching lines; only its first %d are shown]", grepPerFile, grepPerFile)
	}
	return strings.TrimRight(b.String(), "\n") + c.withheldNote()
}

// withheldNote says that secret files matched without showing their lines.
func (c *hitCollector) withheldNote() string {
	if len(c.withheld) == 0 {
		return ""
	}
	return fmt.Sprintf("\n[matches in %d secret file(s) such as .env or keys withheld; read one only if the user asks]", len(c.withheld))
}

// hitText is how a matching line is shown: without its line ending, cut
// at grepLineCut characters, invalid UTF-8 replaced.
func hitText(line []byte) string {
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	cut := false
	i, k := 0, 0
	for i < len(line) {
		if k == grepLineCut {
			cut = true
			break
		}
		_, size := utf8.DecodeRune(line[i:])
		i += size
		k++
	}
	s := strings.ToValidUTF8(string(line[:i]), "\uFFFD")
	if cut {
		s += "…"
	}
	return s
}

// comparePaths orders slash-separated paths as a walk visits them: by
// component, so "a/b" comes before "a.txt" (directory a sorts before the
// name a.txt) although '.' < '/' as bytes.
func comparePaths(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		if x == '/' {
			return -1
		}
		if y == '/' {
			return 1
		}
		if x < y {
			return -1
		}
		return 1
	}
	return len(a) - len(b)
}

func hitBefore(pa string, la int, pb string, lb int) bool {
	if c := comparePaths(pa, pb); c != 0 {
		return c < 0
	}
	return la < lb
}

// hitHeap is a max-heap: the hit that sorts last is on top, ready to be
// displaced by an earlier one.
type hitHeap []grepHit

func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(i, j int) bool {
	return hitBefore(h[j].path, h[j].line, h[i].path, h[i].line)
}
func (h hitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)   { *h = append(*h, x.(grepHit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
