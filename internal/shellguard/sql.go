package shellguard

import (
	"regexp"
	"strings"
	"sync"
)

// sqlKeyword is the cheap first look: text without either word holds no
// destructive statement, however its comments are written.
var sqlKeyword = regexp.MustCompile(`(?i)drop|truncate`)

// destructiveSQL matches DROP of a database object and TRUNCATE of a table
// (not the TRUNCATE() number function). It is compiled when a command
// first mentions either word, not when every shiro process starts.
var destructiveSQL = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\bdrop\s+(?:temporary\s+)?(?:table|database|schema|index|view|materialized\s+view|sequence|function|procedure|trigger|owned|user|role|type|extension|keyspace|collection)\b|\btruncate\s+(?:table\s+)?[\w"` + "`" + `\[]`)
})

// sqlFor reports a DROP or TRUNCATE statement in s, outside string
// literals and comments: `LIKE '%drop table%'` and `-- drop table later`
// are not statements. Databases disagree on what quotes and comments are
// (MySQL reads \' inside a string and # as a comment; PostgreSQL does
// neither), so s is read both ways and refused if either finds a
// statement, unless client is one of MySQL's, which read it MySQL's way
// only (PostgreSQL's E'…' strings take backslash escapes too). The
// statement is looked for once comments are removed, since
// `DROP/**/TABLE` is DROP TABLE.
func sqlFor(client, s string) bool {
	if len(s) < 8 || !sqlKeyword.MatchString(s) {
		return false
	}
	mysql := destructiveSQL().MatchString(sqlCode(s, true))
	if oneOf(client, "mysql", "mariadb", "mysqlsh", "mycli") {
		return mysql
	}
	return mysql || destructiveSQL().MatchString(sqlCode(s, false))
}

// sqlCode returns s with its string literals emptied and its comments
// removed. mysql selects MySQL's reading: backslash escapes in strings,
// `#` and `-- ` comments, and /*! … */ kept as the code it is.
func sqlCode(s string, mysql bool) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'' || c == '"' || c == '`':
			b.WriteByte(c)
			i = skipQuoted(s, i, mysql)
			if i < len(s) {
				b.WriteByte(s[i])
			}
		case c == '-' && strings.HasPrefix(s[i:], "--") && (!mysql || i+2 >= len(s) || s[i+2] == ' ' || s[i+2] == '\t' || s[i+2] == '\n'):
			i = lineEnd(s, i)
			b.WriteByte('\n')
		case c == '#' && mysql:
			i = lineEnd(s, i)
			b.WriteByte('\n')
		case c == '/' && strings.HasPrefix(s[i:], "/*") && !(mysql && strings.HasPrefix(s[i:], "/*!")):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// skipQuoted returns the index of the quote that closes the literal
// opened at s[i], or len(s). A doubled quote stands for itself; with
// backslashes, \x escapes the next byte.
func skipQuoted(s string, i int, backslashes bool) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch {
		case backslashes && s[j] == '\\':
			j++
		case s[j] == q && j+1 < len(s) && s[j+1] == q:
			j++
		case s[j] == q:
			return j
		}
	}
	return len(s)
}

func lineEnd(s string, i int) int {
	if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
		return i + j
	}
	return len(s)
}

// redisFlushes reports redis-cli words that run FLUSHALL or FLUSHDB: the
// command is the first operand after redis-cli's options (`SET note
// flushall` sets a key), or a script an EVAL or FCALL runs.
func redisFlushes(args []arg) bool {
	_, ops := scanOptions(args, optSpec{value: "hpsaurindD", long: []string{"user", "pass", "sni", "cacert", "cacertdir",
		"cert", "key", "tls-ciphers", "tls-ciphersuites", "lru-test", "rdb", "functions-rdb", "pipe-timeout", "pattern",
		"count", "quoted-pattern", "intrinsic-latency", "eval", "cluster", "memkeys-samples", "hotkeys", "askpass"}})
	if len(ops) == 0 {
		return false
	}
	words := make([]string, len(ops))
	for i, w := range ops {
		words[i] = w.text
	}
	return redisCommandFlushes(words)
}

// redisScriptFlushes reads redis-cli's input, one command a line.
func redisScriptFlushes(text string) bool {
	for line := range strings.Lines(text) {
		if redisCommandFlushes(strings.Fields(line)) {
			return true
		}
	}
	return false
}

func redisCommandFlushes(words []string) bool {
	if len(words) == 0 {
		return false
	}
	switch strings.ToLower(words[0]) {
	case "flushall", "flushdb":
		return true
	case "eval", "evalsha", "eval_ro", "fcall", "function", "script":
		for _, w := range words[1:] {
			lw := strings.ToLower(w)
			if strings.Contains(lw, "flushall") || strings.Contains(lw, "flushdb") {
				return true
			}
		}
	}
	return false
}
