// Package registry browses a registry index of skills and declarative
// plugins, checks what it fetches — the index entry, the body, the
// publisher's signature — and installs it under
// $SHIRO_HOME/.shiro-neko/registry/{skills,plugins}.
//
// An index is trusted for what it lists, not for who wrote what it lists:
// content is trusted through ed25519 signatures checked against publisher
// keys pinned in the user's own config. Nothing is written until every
// check has passed, and a refusal says which check failed.
//
// Installing or removing changes files only. The running app picks them up
// when it next rebuilds its skills and plugins, which it does between
// turns, never in the middle of one.
package registry

import (
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/config"
	"github.com/shiro-neko/shiro/internal/version"
)

// Kind is what an index entry installs.
type Kind string

// The two kinds of entry.
const (
	KindSkill  Kind = "skill"
	KindPlugin Kind = "plugin"
)

// Limits from the registry format.
const (
	MaxIndexBytes       = 256 << 10
	MaxEntryBytes       = 64 << 10
	MaxEntriesPerKind   = 500
	MaxNameLen          = 40
	MaxDescriptionLen   = 300
	MaxAuthorLen        = 80
	DefaultFetchTimeout = 20 * time.Second
)

// namePattern is the shape of every registry name: a safe file name and a
// plain word in the prompt.
var namePattern = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// Ref names what to add or remove: a bare name, or one qualified with its
// kind ("skill:review", "plugin:no-prod-db"). Kind is empty when bare.
type Ref struct {
	Kind Kind
	Name string
}

func (r Ref) String() string {
	if r.Kind == "" {
		return r.Name
	}
	return string(r.Kind) + ":" + r.Name
}

// ParseRef reads "name", "skill:name" or "plugin:name". The name must have
// the registry's shape, so it is always safe to use as a file name.
func ParseRef(s string) (Ref, error) {
	var r Ref
	if kind, name, ok := strings.Cut(s, ":"); ok {
		switch Kind(kind) {
		case KindSkill, KindPlugin:
			r.Kind = Kind(kind)
		default:
			return Ref{}, fmt.Errorf("%q: unknown kind %q; write skill:NAME, plugin:NAME or just NAME", s, kind)
		}
		s = name
	}
	if err := checkName(s); err != nil {
		return Ref{}, fmt.Errorf("%q: %w", s, err)
	}
	r.Name = s
	return r, nil
}

func checkName(name string) error {
	switch {
	case name == "":
		return fmt.Errorf("the name is empty")
	case len(name) > MaxNameLen:
		return fmt.Errorf("the name is %d characters; at most %d are allowed", len(name), MaxNameLen)
	case !namePattern.MatchString(name):
		return fmt.Errorf("the name must be lower-case letters, digits and dashes, starting with a letter or digit")
	}
	return nil
}

// Trust is the user's registry trust, read only from the user's own config:
// a project cannot add a publisher or allow unsigned entries.
type Trust struct {
	// Publishers maps a publisher name to its ed25519 public key, as base64
	// of the raw 32 bytes or as a PEM PUBLIC KEY (SubjectPublicKeyInfo).
	Publishers map[string]string
	// AllowUnsigned lets entries without any signature install. It never
	// lets a signature that fails to verify through.
	AllowUnsigned bool
}

// Options configure a Client.
type Options struct {
	// IndexURL is the registry index (config registry.url).
	IndexURL string
	// Dir is the install root, $SHIRO_HOME/.shiro-neko/registry.
	Dir   string
	Trust Trust
	// Transport carries the requests; nil uses a copy of
	// http.DefaultTransport. Tests pass one that trusts their TLS server.
	Transport http.RoundTripper
	// Timeout bounds each fetch; zero means DefaultFetchTimeout.
	Timeout time.Duration
}

// OptionsFrom builds Options from resolved settings. Settings already take
// the registry trust from the user's config only.
func OptionsFrom(s config.Settings, p config.Paths) Options {
	return Options{
		IndexURL: s.RegistryURL,
		Dir:      p.Registry(),
		Trust:    Trust{Publishers: s.RegistryPublishers, AllowUnsigned: s.RegistryAllowUnsigned},
	}
}

// Client talks to one registry and installs into one directory. It holds
// no mutable state, so one Client may serve concurrent calls.
type Client struct {
	opts      Options
	transport http.RoundTripper
}

// New returns a Client. The index URL is checked on the first fetch, so a
// bad registry.url does not stop `installed` or `remove` from working.
func New(opts Options) *Client {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultFetchTimeout
	}
	c := &Client{opts: opts, transport: opts.Transport}
	if c.transport == nil {
		c.transport = defaultTransport()
	}
	return c
}

// SkillsDir is where registry skills are installed.
func (c *Client) SkillsDir() string { return filepath.Join(c.opts.Dir, "skills") }

// PluginsDir is where registry plugins are installed.
func (c *Client) PluginsDir() string { return filepath.Join(c.opts.Dir, "plugins") }

// pathFor is the installed file of a kind and a checked name.
func (c *Client) pathFor(kind Kind, name string) string {
	if kind == KindSkill {
		return filepath.Join(c.SkillsDir(), name+".md")
	}
	return filepath.Join(c.PluginsDir(), name+".json")
}

// userAgent is the only header shiro adds to a registry request.
func userAgent() string { return "shiro/" + version.Version }
