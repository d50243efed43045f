package shellguard

import (
	"testing"
)

func TestDecodeANSIC(t *testing.T) {
	tests := map[string]string{
		`\x72m`:        "rm",
		`\162m`:        "rm",
		`r\u006d`:      "rm",
		`\U0001F600`:   "😀",
		`a\tb\nc`:      "a\tb\nc",
		`\'q\'`:        "'q'",
		`\cA`:          "\x01",
		`cut\0here`:    "cut",
		`keep\q`:       `keep\q`,
		`trailing\`:    `trailing\`,
		`\xZZ`:         `\xZZ`,
		`no escapes`:   "no escapes",
		`\e[0m\E`:      "\x1b[0m\x1b",
		`\a\b\f\r\v\?`: "\a\b\f\r\v?",
	}
	for in, want := range tests {
		if got := decodeANSIC(in); got != want {
			t.Errorf("decodeANSIC(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWordTextQuoteRemoval(t *testing.T) {
	tests := []struct {
		src  string
		want string
		lit  bool
	}{
		{`r\m`, "rm", true},
		{`'r''m'`, "rm", true},
		{`"r\m"`, `r\m`, true},
		{`"a\"b\$c\\d"`, `a"b$c\d`, true},
		{`$'\x72m'`, "rm", true},
		{`-r'f'`, "-rf", true},
		{`"$x"`, `"$x"`, false},
	}
	for _, tt := range tests {
		cmds, err := SimpleCommands("x " + tt.src)
		if err != nil {
			t.Fatal(err)
		}
		if len(cmds) != 1 || len(cmds[0].Args) != 2 {
			t.Fatalf("%q: %v", tt.src, cmds)
		}
		if got, lit := cmds[0].Args[1], cmds[0].Literal; got != tt.want || lit != tt.lit {
			t.Errorf("%s: got %q (literal %v), want %q (literal %v)", tt.src, got, lit, tt.want, tt.lit)
		}
	}
}

func TestCommandName(t *testing.T) {
	for in, want := range map[string]string{"/bin/rm": "rm", "RM": "rm", "./tools/Git": "git", "": ""} {
		c := Command{Args: []string{in}}
		if in == "" {
			c.Args = nil
		}
		if got := c.Name(); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestChmodModes(t *testing.T) {
	world := []string{"777", "0777", "666", "1777", "752", "a+w", "o+w", "o=rwx", "ugo+rwx", "a=rwx", "u+x,o+w", "a+rw-x", "o=u"}
	private := []string{"755", "644", "0700", "+x", "+w", "u+w", "go-w", "a-w", "u=rwx,go=rx", "file.txt", "778", "a+", "o"}
	for _, m := range world {
		if !chmodWorldWritable([]arg{literalArg(m)}) {
			t.Errorf("%q should be world-writable", m)
		}
	}
	for _, m := range private {
		if chmodWorldWritable([]arg{literalArg(m)}) {
			t.Errorf("%q should not be world-writable", m)
		}
	}
}
