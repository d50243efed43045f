package secrets

import (
	"bytes"
	"strings"
)

// What a secret file holds, as strings that can be looked for in a
// command's output. A file's name says it is secret (Classify); its
// values are what must not be printed: the right-hand sides of an
// environment file, the body lines of a key, the passwords and tokens of
// a credentials file. Redacting whole files would miss a value printed on
// its own (`echo $TOKEN`, `grep TOKEN .env`), and redacting every line
// would hide comments and key names nobody needs hidden.

// MinValueLen is the shortest value looked for: shorter ones (ports, "1",
// "yes") would hide ordinary output and are no secret worth the name.
const MinValueLen = 8

// MaxValueLen bounds a value: a longer one is looked for in pieces of
// this length, so that how far output is held back while it streams
// (Stream) stays small. A print of part of a long value is then caught
// piece by piece, short of the ends.
const MaxValueLen = 256

// MaxFileBytes is how much of a secret file is read for values; a larger
// file is read up to here.
const MaxFileBytes = 1 << 20

// plain are values too common in configuration to be secret; hiding them
// would blank ordinary output ("production" in every log line).
var plain = map[string]bool{
	"true": true, "false": true, "localhost": true, "127.0.0.1": true, "0.0.0.0": true,
	"production": true, "development": true, "staging": true, "password": true,
	"username": true, "database": true, "postgres": true, "default": true,
	"disabled": true, "enabled": true, "required": true, "optional": true,
	"http://localhost": true, "https://localhost": true, "utf-8": true, "machine": true,
}

// Values returns the secret values a file of the given kind holds, each at
// least MinValueLen bytes, none longer than MaxValueLen, without repeats.
// content is untrusted: anything is parsed without error, and binary
// content (a NUL byte) yields nothing, since binary stores (.p12, .jks)
// reach output only as mangled bytes.
func Values(kind Kind, content []byte) []string {
	if kind == None || bytes.IndexByte(content, 0) >= 0 {
		return nil
	}
	if len(content) > MaxFileBytes {
		content = content[:MaxFileBytes]
	}
	v := valueSet{seen: map[string]bool{}}
	for _, line := range strings.Split(string(content), "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		if line == "" {
			continue
		}
		switch kind {
		case EnvFile:
			envLine(&v, line)
		case KeyFile, SSHKey:
			keyLine(&v, line)
		default:
			fieldsLine(&v, line)
		}
	}
	return v.out
}

// envLine takes the value of `NAME=value` (or `export NAME=value`, `NAME:
// value`); a line that assigns nothing is the continuation of a quoted
// value spread over lines (a PEM key in an env file) and counts whole.
func envLine(v *valueSet, line string) {
	if strings.HasPrefix(line, "#") {
		return
	}
	line = strings.TrimPrefix(line, "export ")
	_, value, ok := cutAssignment(line)
	if !ok {
		v.addPieces(strings.Trim(line, `"'`))
		return
	}
	value = strings.TrimSpace(value)
	if q := quoteOf(value); q != 0 {
		value = strings.TrimPrefix(value, string(q))
		if end := strings.IndexByte(value, q); end >= 0 {
			value = value[:end]
		}
	} else if i := strings.Index(value, " #"); i >= 0 {
		value = strings.TrimSpace(value[:i])
	}
	v.addPieces(value)
}

// cutAssignment splits `NAME=value` or `NAME: value` where NAME is a run
// of letters, digits, '_', '-' and '.'.
func cutAssignment(line string) (name, value string, ok bool) {
	i := strings.IndexAny(line, "=:")
	if i <= 0 {
		return "", "", false
	}
	name = strings.TrimSpace(line[:i])
	for _, c := range name {
		if !(c == '_' || c == '-' || c == '.' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return "", "", false
		}
	}
	return name, line[i+1:], name != ""
}

func quoteOf(s string) byte {
	if s != "" && (s[0] == '"' || s[0] == '\'') {
		return s[0]
	}
	return 0
}

// keyLine takes a line of a key file whole: the base64 body of a PEM or
// OpenSSH key, or a PuTTY key's lines. The armour (-----BEGIN ...) and
// `Header: value` lines name the format, not the key; a header's value
// still counts (a PuTTY key's Private-MAC).
func keyLine(v *valueSet, line string) {
	if strings.HasPrefix(line, "-----") {
		return
	}
	if _, value, ok := cutAssignment(line); ok && strings.HasPrefix(value, " ") {
		v.addPieces(strings.TrimSpace(value))
		return
	}
	v.addPieces(line)
}

// fieldsLine reads a line of a token or credentials file in any of their
// shapes (.netrc's `machine h login u password p`, .pgpass's colons,
// .npmrc's `//host/:_authToken=t`, JSON, YAML, INI, a git-credentials URL):
// its last field is the value it sets, and any other field that looks
// like a token (mixing letters with digits or symbols, or long) counts too.
func fieldsLine(v *valueSet, line string) {
	if strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") || strings.HasPrefix(line, "//") && !strings.Contains(line, "=") {
		return
	}
	// A JSON string may hold a whole key with its newlines escaped.
	line = strings.ReplaceAll(line, `\n`, "\n")
	fields := strings.FieldsFunc(line, func(r rune) bool {
		switch r {
		case ' ', '\t', '\n', '=', ':', '"', '\'', ',', '{', '}', '[', ']', '@':
			return true
		}
		return false
	})
	for i, f := range fields {
		if i == len(fields)-1 || tokenLike(f) {
			v.addPieces(f)
		}
	}
}

// tokenLike reports whether a field looks generated rather than written:
// mixing letters with digits or symbols, or both cases, or very long.
// Key names (aws_secret_access_key) and host names are none of these.
func tokenLike(f string) bool {
	if len(f) >= 32 {
		return true
	}
	var lower, upper, other bool
	for _, c := range f {
		switch {
		case c >= 'a' && c <= 'z':
			lower = true
		case c >= 'A' && c <= 'Z':
			upper = true
		case c != '.' && c != '-' && c != '_' && c != '/':
			other = true
		}
	}
	return lower && upper || (lower || upper) && other
}

// valueSet collects values in order, without repeats.
type valueSet struct {
	out  []string
	seen map[string]bool
}

// addPieces adds a value, split at escaped or real newlines (a key held in
// one string) and cut into MaxValueLen pieces.
func (v *valueSet) addPieces(s string) {
	for _, part := range strings.Split(strings.ReplaceAll(s, `\n`, "\n"), "\n") {
		part = strings.TrimSpace(part)
		for len(part) > MaxValueLen {
			v.add(part[:MaxValueLen])
			part = part[MaxValueLen:]
		}
		v.add(part)
	}
}

func (v *valueSet) add(s string) {
	if len(s) < MinValueLen || plain[strings.ToLower(s)] || v.seen[s] || allDigits(s) && len(s) < 12 {
		return
	}
	v.seen[s] = true
	v.out = append(v.out, s)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
