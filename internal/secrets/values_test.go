package secrets_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/secrets"
)

func TestValuesOfEnvFile(t *testing.T) {
	env := strings.Join([]string{
		"# a comment with longwordsinside",
		"export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG",
		`DB_URL="postgres://app:s3cr3tpass@db:5432/app" # inline`,
		"NODE_ENV=production",
		"PORT=8080",
		"DEBUG=true",
		"SINGLE='quoted value here'",
		"UNQUOTED=plainvalue123 # a comment",
		`PRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----`,
		"MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn",
		`-----END RSA PRIVATE KEY-----"`,
		`ESCAPED="line1secret\nline2secret"`,
		"\r",
	}, "\r\n")
	got := secrets.Values(secrets.EnvFile, []byte(env))
	want := []string{
		"wJalrXUtnFEMI/K7MDENG",
		"postgres://app:s3cr3tpass@db:5432/app",
		"quoted value here",
		"plainvalue123",
		"MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn",
		"line1secret", "line2secret",
	}
	for _, w := range want {
		if !slices.Contains(got, w) {
			t.Errorf("value %q not found in %q", w, got)
		}
	}
	for _, no := range []string{"production", "8080", "true", "longwordsinside"} {
		for _, g := range got {
			if strings.Contains(g, no) {
				t.Errorf("%q should not be a value (got %q)", no, g)
			}
		}
	}
}

func TestValuesOfKeysAndTokenFiles(t *testing.T) {
	pem := "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\nbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----\n"
	cases := []struct {
		name    string
		kind    secrets.Kind
		content string
		want    []string
		not     []string
	}{
		{"id_rsa", secrets.SSHKey, pem, []string{"b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE", "bm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW"}, []string{"-----BEGIN OPENSSH PRIVATE KEY-----"}},
		{".netrc", secrets.TokenFile, "machine api.example.com login bob password hunter2hunter2\n", []string{"hunter2hunter2"}, []string{"machine", "password"}},
		{".pgpass", secrets.TokenFile, "db.local:5432:app:bob:Tr0ub4dor&3x\n", []string{"Tr0ub4dor&3x"}, nil},
		{".npmrc", secrets.TokenFile, "//registry.npmjs.org/:_authToken=npm_AbCdEf0123456789\n", []string{"npm_AbCdEf0123456789"}, nil},
		{".git-credentials", secrets.TokenFile, "https://bob:ghp_abcdefGHIJ0123456789@github.com\n", []string{"ghp_abcdefGHIJ0123456789"}, nil},
		{"credentials.json", secrets.CredentialsFile, `{"private_key": "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEF\n-----END PRIVATE KEY-----\n", "client_email": "x@y.iam.gserviceaccount.com"}`, []string{"MIIEvQIBADANBgkqhkiG9w0BAQEF"}, []string{"client_email", "private_key"}},
		{"credentials", secrets.CredentialsDir, "[default]\naws_secret_access_key = wJalrXUtnFEMIK7MDENGbPxRfiCY\n", []string{"wJalrXUtnFEMIK7MDENGbPxRfiCY"}, []string{"aws_secret_access_key"}},
		{"binary", secrets.KeyFile, "0\x82\x00abcdefghijklmnop", nil, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := secrets.Values(c.kind, []byte(c.content))
			for _, w := range c.want {
				if !slices.Contains(got, w) {
					t.Errorf("value %q not found in %q", w, got)
				}
			}
			for _, n := range c.not {
				if slices.Contains(got, n) {
					t.Errorf("%q should not be a value: %q", n, got)
				}
			}
			if c.want == nil && len(got) > 0 {
				t.Errorf("want no values, got %q", got)
			}
		})
	}
}

func TestValuesSplitsLongValues(t *testing.T) {
	long := strings.Repeat("abcdefgh01", 60) // 600 bytes
	got := secrets.Values(secrets.EnvFile, []byte("BIG="+long))
	if len(got) != 3 || got[0] != long[:secrets.MaxValueLen] || got[1] != long[secrets.MaxValueLen:2*secrets.MaxValueLen] || got[2] != long[2*secrets.MaxValueLen:] {
		t.Fatalf("pieces of a long value: %d values", len(got))
	}
}

// FuzzValues feeds the extractor arbitrary file content, which comes from
// outside: it must not panic, and what it returns must be pieces of that
// content within the length bounds.
func FuzzValues(f *testing.F) {
	f.Add(byte(secrets.EnvFile), []byte("A=bcdefghij\nexport B='x y z w v u'\n"))
	f.Add(byte(secrets.SSHKey), []byte("-----BEGIN X-----\nQUJDREVGR0hJSktM\n-----END X-----\n"))
	f.Add(byte(secrets.TokenFile), []byte("machine h login u password p4ssw0rd!!\n"))
	f.Add(byte(secrets.CredentialsFile), []byte(`{"k": "v\nMIIEvQIBADANBgkq\n"}`))
	f.Fuzz(func(t *testing.T, kind byte, content []byte) {
		k := secrets.Kind(kind % 7)
		got := secrets.Values(k, content)
		seen := map[string]bool{}
		for _, v := range got {
			if len(v) < secrets.MinValueLen || len(v) > secrets.MaxValueLen {
				t.Fatalf("value of %d bytes: %q", len(v), v)
			}
			if seen[v] {
				t.Fatalf("value %q repeated", v)
			}
			seen[v] = true
			// A value is the file's own text, apart from an escaped newline
			// read as one.
			if !strings.Contains(strings.ReplaceAll(string(content), `\n`, "\n"), v) {
				t.Fatalf("value %q is not in the content", v)
			}
		}
	})
}
