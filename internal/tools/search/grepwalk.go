package search

import (
	"bytes"
	"context"
	"io/fs"
	"path/filepath"
	"regexp"
	"runtime"
	"sync"

	"github.com/shiro-neko/shiro/internal/workspace"
)

// grepWalk is grep without ripgrep: the shared Walk lists the files (so
// the ignore rules are exactly those of glob and list_dir) and a pool of
// workers searches them with Go's regexp package.
//
// Go's regexp is RE2: like ripgrep's default engine it has no
// backreferences or look-around, but it differs in details: \d, \w, \s
// and \b are ASCII-only here and Unicode-aware in ripgrep; ripgrep
// accepts class set operations such as [a-z&&[^x]] and rejects a literal
// \n in the pattern, Go does neither. Both match line by line, so `.` and
// classes never cross a newline and ^ and $ anchor at line boundaries (a
// CR before the newline is part of the line, as in ripgrep).
func grepWalk(ctx context.Context, env *workspace.Env, q *grepQuery, col *hitCollector) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	paths := make(chan string, 256)
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			s := newFileSearcher(q, col)
			for rel := range paths {
				if ctx.Err() != nil {
					continue // drain after a cancel
				}
				s.searchFile(filepath.Join(env.Root, filepath.FromSlash(rel)), rel)
			}
		})
	}
	err := workspace.Walk(ctx, env, ".", workspace.WalkOptions{IncludeIgnored: q.includeIgnored}, func(rel string, d fs.DirEntry) error {
		// Only regular files: not symlinks (never followed, as in rg), and
		// not FIFOs or devices, which could block a read forever.
		if !d.Type().IsRegular() {
			return nil
		}
		if q.include != nil && !q.include.Match(rel) {
			return nil
		}
		select {
		case paths <- rel:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	})
	close(paths)
	wg.Wait()
	if err == nil {
		err = ctx.Err()
	}
	return err
}

// fileSearcher searches one file at a time, reusing its buffers.
type fileSearcher struct {
	re    *regexp.Regexp
	need  needle
	col   *hitCollector
	buf   []byte // the file, reused
	lower []byte // the file in ASCII lower case, for a case-folded needle
}

func newFileSearcher(q *grepQuery, col *hitCollector) *fileSearcher {
	return &fileSearcher{re: q.re, need: q.needle, col: col}
}

func (s *fileSearcher) searchFile(abs, rel string) {
	data, ok := readForGrep(abs, s.buf, grepMaxFileSize)
	s.buf = data[:0]
	if !ok {
		return // vanished, unreadable or too large: nothing to report, as rg --no-messages
	}
	// The same test as IsBinary, with a vectorised scan: it runs on every
	// file searched.
	if bytes.IndexByte(data[:min(len(data), workspace.BinarySniff)], 0) >= 0 {
		return
	}
	if s.need.lit == nil {
		s.scanRegexp(data, rel)
		return
	}
	hay := data
	if s.need.fold {
		s.lower = asciiLower(s.lower[:0], data)
		hay = s.lower
	}
	s.scanCandidates(data, hay, rel)
}

// lineCursor turns match offsets into line numbers and line bounds,
// counting newlines only once as it moves forward through a file.
type lineCursor struct {
	data   []byte
	lineNo int // the number of the line that starts at lineAt
	lineAt int
}

// lineOf returns the number and bounds of the line holding offset a,
// which must not be before the cursor.
func (c *lineCursor) lineOf(a int) (n, start, end int) {
	c.lineNo += bytes.Count(c.data[c.lineAt:a], []byte{'\n'})
	start = c.lineAt + bytes.LastIndexByte(c.data[c.lineAt:a], '\n') + 1
	c.lineAt = start
	end = len(c.data)
	if nl := bytes.IndexByte(c.data[a:], '\n'); nl >= 0 {
		end = a + nl
	}
	return c.lineNo, start, end
}

// next moves the cursor to the line after one that ends at end, and
// reports false at the end of the data.
func (c *lineCursor) next(end int) bool {
	if end >= len(c.data) {
		return false
	}
	c.lineAt, c.lineNo = end+1, c.lineNo+1
	return true
}

// scanCandidates finds the needle in hay (data, or data in lower case) and
// checks only the lines that hold it: most lines of most files are never
// given to the regexp engine.
func (s *fileSearcher) scanCandidates(data, hay []byte, rel string) {
	cur := lineCursor{data: data, lineNo: 1}
	hits := 0
	for {
		i := bytes.Index(hay[cur.lineAt:], s.need.lit)
		if i < 0 {
			return
		}
		n, start, end := cur.lineOf(cur.lineAt + i)
		if s.need.whole || s.re.Match(data[start:end]) {
			if s.hit(rel, n, data[start:end], &hits) {
				return
			}
		}
		if !cur.next(end) {
			return
		}
	}
}

// scanRegexp runs the regexp over the whole file, for patterns without a
// usable literal.
func (s *fileSearcher) scanRegexp(data []byte, rel string) {
	cur := lineCursor{data: data, lineNo: 1}
	hits := 0
	for {
		loc := s.re.FindIndex(data[cur.lineAt:])
		if loc == nil {
			return
		}
		a, b := cur.lineAt+loc[0], cur.lineAt+loc[1]
		if a == len(data) && (a == 0 || data[a-1] == '\n') {
			return // an empty match after the final newline is not a line
		}
		n, start, end := cur.lineOf(a)
		// The match may run across a newline (\s matches one); the line
		// counts only if the pattern matches within it.
		if b <= end || s.re.Match(data[start:end]) {
			if s.hit(rel, n, data[start:end], &hits) {
				return
			}
		}
		if !cur.next(end) {
			return
		}
	}
}

// hit records a matching line and reports whether the file has reached
// its limit.
func (s *fileSearcher) hit(rel string, n int, line []byte, hits *int) bool {
	s.col.add(rel, n, line)
	*hits++
	if *hits == grepPerFile {
		s.col.markCapped(rel)
		return true
	}
	return false
}
