// Package problem is the one report of something that did not load (a
// skill, plugin, hook or tool file, the project's config, memory): what
// kind of thing it was, where it is, and what is wrong with it, including
// what to do. Loading goes on without it, and the person is told once: in
// the terminal UI, on headless stderr (and as a notice event with --json),
// and by the listings (`shiro plugins`, `shiro skills`, `shiro hooks
// list`). Every loader reports in this type, so nothing translates one
// report into another on the way.
package problem

// Problem is one thing that did not load.
type Problem struct {
	// Kind is what failed to load: skill, plugin, hook, tool, memory,
	// background, config, command, mcp, sandbox.
	Kind string
	// Where is the file or folder at fault, when there is one.
	Where string
	// Err says what is wrong and what to change.
	Err string
}

// String is the report as the person reads it: "hook /p/x: what is wrong".
func (p Problem) String() string {
	if p.Where == "" {
		return p.Kind + ": " + p.Err
	}
	return p.Kind + " " + p.Where + ": " + p.Err
}

// At is the report without its kind, for a listing that names the kind
// already: "/p/x: what is wrong".
func (p Problem) At() string {
	if p.Where == "" {
		return p.Err
	}
	return p.Where + ": " + p.Err
}
