package shellguard

import (
	"slices"
	"testing"
)

func TestSedCommands(t *testing.T) {
	for _, tt := range []struct {
		script, opaque string
		cmds           []string
	}{
		{"s/a/b/g; /x/d", "", nil},
		{"1e date\ns/x/y/", "", []string{"date"}},
		{"/start/,/end/{ e ls\n}", "", []string{"ls"}},
		{"s|x|y|e", "sed's s///e runs the text it reads as a command", nil},
		{"e", "sed's e runs the text it reads as a command", nil},
		{`$a\` + "\nend", "", nil},
		{"y/abc/xyz/;1~2p;$!N", "", nil},
		{"s/x/y/w out.txt", "", nil},
		{"s/unterminated", "a sed script the guard cannot read", nil},
	} {
		cmds, opaque := sedCommands(tt.script)
		if opaque != tt.opaque || !slices.Equal(cmds, tt.cmds) {
			t.Errorf("sedCommands(%q) = %q, %q; want %q, %q", tt.script, cmds, opaque, tt.cmds, tt.opaque)
		}
	}
}

func TestAwkCommands(t *testing.T) {
	for _, tt := range []struct {
		prog           string
		scripts, piped []string
		opaque         bool
	}{
		{`{print $1}`, nil, nil, false},
		{`/a|b/ {n++} END {print n/2}`, nil, nil, false},
		{`BEGIN{system("ls -l")}`, []string{"ls -l"}, nil, false},
		{`{print | "sort -u"}`, nil, []string{"sort -u"}, false},
		{`BEGIN{"date" | getline d}`, []string{"date"}, nil, false},
		{`BEGIN{system(cmd)}`, nil, nil, true},
		{`{print | cmd}`, nil, nil, true},
		{`@load "x"`, nil, nil, true},
	} {
		scripts, piped, opaque := awkCommands(tt.prog)
		if !slices.Equal(scripts, tt.scripts) || !slices.Equal(piped, tt.piped) || (opaque != "") != tt.opaque {
			t.Errorf("awkCommands(%q) = %q, %q, %q", tt.prog, scripts, piped, opaque)
		}
	}
}
