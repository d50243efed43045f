package bash

import (
	"fmt"
	"strings"

	"github.com/shiro-neko/shiro/internal/prose"
)

// report renders the results: a verdict, a row per check, and the head of
// each failure's output.
func report(results []checkResult) string {
	failed := 0
	for _, r := range results {
		if !r.passed {
			failed++
		}
	}
	var b strings.Builder
	if failed == 0 {
		fmt.Fprintf(&b, "checks: all passed (%d)\n", len(results))
	} else {
		fmt.Fprintf(&b, "checks: FAILED (%d of %d)\n", failed, len(results))
	}
	for _, r := range results {
		verdict := "PASS"
		if !r.passed {
			verdict = "FAIL"
		}
		fmt.Fprintf(&b, "%s  %s  (%s)", verdict, r.command, r.source)
		if !r.passed {
			b.WriteString("  " + r.status)
		}
		b.WriteByte('\n')
	}
	for _, r := range results {
		if r.passed {
			continue
		}
		fmt.Fprintf(&b, "\n--- %s ---\n", r.command)
		if len(r.head) == 0 {
			b.WriteString("(no output)\n")
		}
		for _, l := range r.head {
			b.WriteString(prose.Cut(l, failureLineCut) + "\n")
		}
		if r.more > 0 {
			fmt.Fprintf(&b, "[... %d more lines]\n", r.more)
		}
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// headLines keeps the first max lines of a stream and counts the rest.
type headLines struct {
	max     int
	kept    []string
	partial strings.Builder
	pending bool // part of a line has been seen
	dropped int
}

func (h *headLines) write(p []byte) {
	for len(p) > 0 {
		nl := -1
		for i, c := range p {
			if c == '\n' {
				nl = i
				break
			}
		}
		if nl < 0 {
			h.pending = true
			if len(h.kept) < h.max && h.partial.Len() < 4*failureLineCut {
				h.partial.Write(p[:min(len(p), 4*failureLineCut-h.partial.Len())])
			}
			return
		}
		if len(h.kept) < h.max && h.partial.Len() < 4*failureLineCut {
			h.partial.Write(p[:min(nl, 4*failureLineCut-h.partial.Len())])
		}
		h.endLine()
		p = p[nl+1:]
	}
}

func (h *headLines) endLine() {
	if len(h.kept) < h.max {
		h.kept = append(h.kept, strings.TrimSuffix(strings.ToValidUTF8(h.partial.String(), "\uFFFD"), "\r"))
	} else {
		h.dropped++
	}
	h.partial.Reset()
	h.pending = false
}

// lines returns the kept lines and how many more there were.
func (h *headLines) lines() ([]string, int) {
	if h.pending {
		h.endLine()
	}
	return h.kept, h.dropped
}
