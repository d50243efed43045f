package plugin

import "slices"

// RunsPrograms reports whether the builtin plugin name starts programs of
// its own (format its formatters, no-main-commit git), rather than only
// refusing, advising or answering. A project's config may switch such a
// plugin on only once the person approves it: what a formatter runs is
// the project's to decide (a package.json script), and so is whoever
// wrote the config.
func RunsPrograms(name string) bool {
	return slices.Contains([]string{"format", "no-main-commit"}, name)
}
