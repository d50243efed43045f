package shellguard

import "mvdan.cc/sh/v3/syntax"

// The tests' shorthand for one question about a line. The product asks
// Analyze once and reads everything from the analysis; a test usually
// asks one thing.

// Check is the first refusal for src, or nil: Analyze(src).Verdict().
func Check(src string) *Verdict { return Analyze(src).Verdict() }

// CheckAll is every refusal for src in source order: Analyze(src).Findings().
func CheckAll(src string) []Verdict { return Analyze(src).Findings() }

// Effective is what src would run once wrappers are unwrapped:
// Analyze(src).Effective().
func Effective(src string) ([]Command, error) { return Analyze(src).Effective() }

// SimpleCommands is every simple command of src as written, wrappers not
// unwrapped, or the parse error.
func SimpleCommands(src string) ([]Command, error) {
	a := Analyze(src)
	if err := a.ParseErr(); err != nil {
		return nil, err
	}
	return a.Commands(), nil
}

// Parse parses src as bash.
func Parse(src string) (*syntax.File, error) { return parseWith(newParser(), src) }
