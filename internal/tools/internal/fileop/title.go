package fileop

import (
	"strings"
	"unicode"

	"github.com/shiro-neko/shiro/internal/prose"
)

// TitleMax is the most characters a Plan's title shows of an argument.
const TitleMax = 80

// Title makes an argument fit a Plan's title, one line: control
// characters become spaces and a long text is cut with an ellipsis.
func Title(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) {
			return ' '
		}
		return r
	}, s)
	return prose.Cut(s, TitleMax)
}
