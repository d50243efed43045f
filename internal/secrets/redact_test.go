package secrets_test

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/shiro-neko/shiro/internal/secrets"
)

const (
	token = "sk-live-9f8e7d6c5b4a"
	short = "abc1234" // one byte short of MinValueLen
)

func testRedactor() *secrets.Redactor {
	return secrets.NewRedactor([]secrets.Secret{
		{Value: token, Source: ".env"},
		{Value: "MIIEpAIBAAKCAQEA0Z3VS5JJ", Source: "deploy/id_rsa"},
		{Value: short, Source: ".env"},
		// Two values that overlap: printed together they are one secret.
		{Value: "abcdefgh", Source: "a.env"},
		{Value: "efghijkl", Source: "b.env"},
	})
}

func TestRedactReplacesEveryOccurrence(t *testing.T) {
	r := testRedactor()
	in := "+API_TOKEN=" + token + "\nx" + token + token + " and MIIEpAIBAAKCAQEA0Z3VS5JJ\n" + short
	got := r.Redact(in)
	want := "+API_TOKEN=[secret withheld: .env]\nx[secret withheld: .env][secret withheld: .env] and [secret withheld: deploy/id_rsa]\n" + short
	if got != want {
		t.Fatalf("Redact:\n got %q\nwant %q", got, want)
	}
	if plain := "nothing secret here, " + token[:10]; r.Redact(plain) != plain {
		t.Fatalf("text without a whole secret changed: %q", r.Redact(plain))
	}
}

// A value piped through base64 or hex, alone or inside a longer stream at
// any alignment, is withheld too.
func TestRedactEncodedForms(t *testing.T) {
	r := testRedactor()
	for pre := 0; pre < 3; pre++ {
		stream := strings.Repeat("K", pre) + "EY=" + token + "\nNEXT=1\n"
		for name, enc := range map[string]string{
			"std":     base64.StdEncoding.EncodeToString([]byte(stream)),
			"url-raw": base64.RawURLEncoding.EncodeToString([]byte(stream)),
			"hex":     hex.EncodeToString([]byte(stream)),
			"HEX":     strings.ToUpper(hex.EncodeToString([]byte(stream))),
		} {
			got := r.Redact(enc)
			if !strings.Contains(got, "[secret withheld: .env]") {
				t.Errorf("%s with %d bytes before: %q not redacted: %q", name, pre, enc, got)
			}
		}
	}
}

// However the output is cut into chunks, the stream releases the same
// text as redacting it whole, and never a secret.
func TestStreamAcrossChunks(t *testing.T) {
	r := testRedactor()
	text := "head " + token + " mid MIIEpAIBAAKCAQEA0Z3VS5JJ" + token + " abcdefghijkl tail " + token[:9]
	want := r.Redact(text)
	for cut := 0; cut <= len(text); cut++ {
		for cut2 := cut; cut2 <= len(text); cut2 += 7 {
			s := secrets.NewStream(fixed{r})
			var got []byte
			got = append(got, s.Write([]byte(text[:cut]))...)
			got = append(got, s.Write([]byte(text[cut:cut2]))...)
			got = append(got, s.Write([]byte(text[cut2:]))...)
			got = append(got, s.Flush()...)
			if string(got) != want {
				t.Fatalf("cut at %d and %d:\n got %q\nwant %q", cut, cut2, got, want)
			}
		}
	}
}

// Output that ends a line, or ends in what cannot begin a secret, is
// released at once: a server's last line must reach bash_status.
func TestStreamHoldsBackOnlyWhatCouldBeginASecret(t *testing.T) {
	r := testRedactor()
	s := secrets.NewStream(fixed{r})
	for _, c := range []struct{ in, out string }{
		{"listening on :3000\n", "listening on :3000\n"},
		{"ready> ", "ready> "},
		{"KEY=" + token[:6], "KEY="},
		{token[6:] + "\nx", "[secret withheld: .env]\nx"},
	} {
		if got := string(s.Write([]byte(c.in))); got != c.out {
			t.Fatalf("after %q released %q, want %q", c.in, got, c.out)
		}
	}
}

func TestStreamWithholdsWhenSecretsUnknown(t *testing.T) {
	s := secrets.NewStream(&busy{err: errors.New("scan failed")})
	out := string(s.Write([]byte("KEY="+token))) + string(s.Write([]byte(token))) + string(s.Flush())
	if strings.Contains(out, token) || !strings.Contains(out, "output withheld") || strings.Count(out, "withheld") != 1 {
		t.Fatalf("output when the secrets are unknown: %q", out)
	}
}

// While the source works out new secrets, output is held, not waited for;
// it is released, redacted with the new secrets, once they are known.
func TestStreamHoldsOutputWhileTheSourceIsBusy(t *testing.T) {
	src := &busy{next: testRedactor()}
	s := secrets.NewStream(src)
	if got := s.Write([]byte("new: " + token + "\n")); len(got) != 0 || src.waited || s.Held() == nil {
		t.Fatalf("released %q (waited %v, held %v) while the source was busy", got, src.waited, s.Held())
	}
	if got := string(s.Flush()); got != "new: [secret withheld: .env]\n" || !src.waited {
		t.Fatalf("flush gave %q", got)
	}
}

// fixed is a Source that always has r.
type fixed struct{ r *secrets.Redactor }

func (f fixed) Current() (*secrets.Redactor, <-chan struct{}) { return f.r, nil }
func (f fixed) Wait() (*secrets.Redactor, error)              { return f.r, nil }

// busy is a Source still working out its secrets until waited for.
type busy struct {
	next   *secrets.Redactor
	err    error
	waited bool
	done   chan struct{}
}

func (b *busy) Current() (*secrets.Redactor, <-chan struct{}) {
	if b.done == nil {
		b.done = make(chan struct{})
	}
	return nil, b.done
}
func (b *busy) Wait() (*secrets.Redactor, error) {
	b.waited = true
	return b.next, b.err
}

// FuzzStream checks the chunked path against the whole-text one on
// arbitrary output and cuts.
func FuzzStream(f *testing.F) {
	f.Add([]byte("a "+token+" b"), uint16(3), uint16(12))
	f.Fuzz(func(t *testing.T, text []byte, c1, c2 uint16) {
		r := testRedactor()
		a := min(int(c1), len(text))
		b := min(max(int(c2), a), len(text))
		s := secrets.NewStream(fixed{r})
		got := string(s.Write(text[:a])) + string(s.Write(text[a:b])) + string(s.Write(text[b:])) + string(s.Flush())
		if want := r.Redact(string(text)); got != want {
			t.Fatalf("chunked %q, whole %q", got, want)
		}
	})
}

// benchOutput is 64 KB of build-like output with no secret in it.
func benchOutput() []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"ok  ", "github.com/shiro-neko/shiro/internal/", "PASS", "--- FAIL: TestX (0.01s)\n", "main.go:12:3: ", "undefined: foo\n", "0.042s\n", "a1b2c3d4e5f6 "}
	var b strings.Builder
	for b.Len() < 64<<10 {
		b.WriteString(words[rng.IntN(len(words))])
	}
	return []byte(b.String()[:64<<10])
}

// benchRedactor knows 100 values (800 patterns with their encodings), as a
// project with a few env files and keys in its history would.
func benchRedactor() *secrets.Redactor {
	rng := rand.New(rand.NewPCG(3, 4))
	var ss []secrets.Secret
	for i := 0; i < 100; i++ {
		b := make([]byte, 12+rng.IntN(40))
		for j := range b {
			b[j] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"[rng.IntN(62)]
		}
		ss = append(ss, secrets.Secret{Value: string(b), Source: ".env"})
	}
	return secrets.NewRedactor(ss)
}

func BenchmarkRedact64KB(b *testing.B) {
	r, out := benchRedactor(), string(benchOutput())
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		if r.Redact(out) != out {
			b.Fatal("clean output changed")
		}
	}
}

func BenchmarkStream64KB(b *testing.B) {
	r, out := benchRedactor(), benchOutput()
	b.SetBytes(int64(len(out)))
	for b.Loop() {
		s := secrets.NewStream(fixed{r})
		for at := 0; at < len(out); at += 32 << 10 {
			s.Write(out[at : at+32<<10])
		}
		s.Flush()
	}
}
