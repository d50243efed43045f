// Package shellguard works out, before a shell command line runs, what it
// will do, and refuses the irreversible parts. It never looks at the raw
// string: everything it knows comes from one mvdan.cc/sh syntax tree.
//
// It is cut in three, read in this order:
//
//   - The analysis (analysis.go, analyze.go, walk.go, command.go): Analyze
//     parses the line, with every script it hands to a shell, and walks it
//     once, following each command through its wrappers, shells, eval,
//     find -exec and the like (programs.go, wrappers.go, runners*.go,
//     interpreters.go, scripts.go), what feeds its input (pipeline.go) and
//     where it runs (dirs.go). Words are read by one quote removal
//     (parse.go's unquote, words.go).
//   - The facts it derives, each a named type: the variables and command
//     names the line sets (facts), the effective Command list with why each
//     runs code (RunsCode), the GitCall list with aliases resolved
//     (git_alias.go), the files each command reads and writes (Access,
//     Path, Link), the shape of a word before it runs (shape) and the
//     scripts it parses (Script). The guard, the plugins and the
//     permission rules all read the same Analysis.
//   - The decision table (rules.go's table): one row per line of the plugin
//     document's table, each the programs it is about, a condition on their
//     words (a small named func, in rules.go, git.go and sql.go) and the
//     Category with the words of its refusal, read top to bottom for every
//     effective command. The fork bomb (checks.go) and a download run by a
//     shell (pipeline.go) are found by the walk. Analysis.Verdict is the
//     guard's answer: the first refusal, with what cannot be known before
//     the line runs refused as CategoryOpaque.
package shellguard
