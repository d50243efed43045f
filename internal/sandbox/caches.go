package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/shiro-neko/shiro/internal/fsutil"
	"github.com/shiro-neko/shiro/internal/proc"
)

// Cache is a toolchain's cache or package store that commands may write in
// workspace-write: without it the first `go test` or `npm test` fails on
// a folder in the home directory (issue 28).
type Cache struct {
	// Tool names the toolchain ("go", "npm", "cargo", ...).
	Tool string
	// Path is the folder, absolute, with symlinks resolved.
	Path string
	// From is the setting that named it: "go env GOCACHE",
	// "npm_config_cache", or "default" for the tool's own default that
	// exists on this machine.
	From string
}

// goEnvTimeout bounds `go env`, which answers in tens of milliseconds;
// a toolchain that hangs must not hold back every command.
const goEnvTimeout = 20 * time.Second

// cacheSearch is where the toolchains' caches are looked for: the
// environment commands start from, and the home directory.
type cacheSearch struct {
	env  map[string]string
	home string
	// goEnv asks the go command for its settings; nil when go is not on
	// the commands' PATH.
	goEnv func(ctx context.Context, names ...string) (map[string]string, error)
}

// found is what the search found: the caches, more secret locations the
// toolchains' settings name (CARGO_HOME's credentials, say), and notes
// on what was left out.
type found struct {
	caches  []Cache
	secrets []string
	notes   []string
}

// candidate is a cache as a setting names it, before it is checked.
type candidate struct {
	tool, path, from string
	// named: the tool's settings name it explicitly, so it is made when
	// it does not exist yet (the tool would make it); a default is only
	// taken when it exists.
	named bool
}

// find looks for the caches of the common toolchains, each from its own
// settings: what the environment names, else the tool's default.
func (c cacheSearch) find(ctx context.Context) found {
	var cands []candidate
	var out found
	add := func(tool, from, path string, named bool) {
		if path != "" {
			cands = append(cands, candidate{tool, path, from, named})
		}
	}
	// fromEnv adds the folder an environment variable names, or the
	// default when it is not set.
	fromEnv := func(tool, name, def string) {
		if v := c.env[name]; v != "" {
			add(tool, name, v, true)
			return
		}
		add(tool, "default", def, false)
	}
	home := c.home
	inHome := func(rel string) string {
		if home == "" {
			return ""
		}
		return filepath.Join(home, rel)
	}
	xdgCache := c.env["XDG_CACHE_HOME"]
	if xdgCache == "" {
		xdgCache = inHome(".cache")
	}
	xdgData := c.env["XDG_DATA_HOME"]
	if xdgData == "" {
		xdgData = inHome(".local/share")
	}
	under := func(dir, rel string) string {
		if dir == "" {
			return ""
		}
		return filepath.Join(dir, rel)
	}

	// Go: the go command knows best (GOENV, GOPATH, GOCACHE, XDG...).
	if c.goEnv != nil {
		vals, err := c.goEnv(ctx, "GOCACHE", "GOMODCACHE")
		if err != nil {
			out.notes = append(out.notes, fmt.Sprintf("go's caches are not writable: `go env GOCACHE GOMODCACHE` failed: %v", err))
		}
		for _, name := range []string{"GOCACHE", "GOMODCACHE"} {
			// GOCACHE=off turns the cache off: nothing to allow.
			if v := vals[name]; filepath.IsAbs(v) {
				add("go", "go env "+name, v, true)
			}
		}
	}
	// npm: its cache holds npx's packages (_npx) too.
	npmCache := c.env["npm_config_cache"]
	if npmCache == "" {
		npmCache = c.env["NPM_CONFIG_CACHE"]
	}
	if npmCache != "" {
		add("npm", "npm_config_cache", npmCache, true)
	} else {
		// With npm installed its default is as good as named: npx, which
		// MCP servers are started with, fails without it.
		_, installed := lookPath("npm", c.env)
		add("npm", "default", inHome(".npm"), installed)
	}
	// pnpm: its content-addressed store and its metadata cache; never
	// $XDG_DATA_HOME/pnpm as a whole, which holds pnpm itself and the
	// global packages' programs on the person's PATH.
	fromEnv("pnpm", "npm_config_store_dir", under(xdgData, "pnpm/store"))
	add("pnpm", "default", under(xdgCache, "pnpm"), false)
	// yarn: classic's cache, and berry's global cache.
	fromEnv("yarn", "YARN_CACHE_FOLDER", under(xdgCache, "yarn"))
	add("yarn", "default", inHome(".yarn/berry/cache"), false)
	// cargo: the registry and git checkouts, never CARGO_HOME as a whole
	// (its credentials stay secret).
	cargoHome, cargoFrom := c.env["CARGO_HOME"], "CARGO_HOME"
	if cargoHome == "" {
		cargoHome, cargoFrom = inHome(".cargo"), "default"
	}
	if cargoHome != "" {
		add("cargo", cargoFrom+"/registry", filepath.Join(cargoHome, "registry"), false)
		add("cargo", cargoFrom+"/git", filepath.Join(cargoHome, "git"), false)
		out.secrets = append(out.secrets, filepath.Join(cargoHome, "credentials"), filepath.Join(cargoHome, "credentials.toml"))
	}
	// Python: pip's and uv's caches.
	fromEnv("pip", "PIP_CACHE_DIR", under(xdgCache, "pip"))
	fromEnv("uv", "UV_CACHE_DIR", under(xdgCache, "uv"))
	// Maven's local repository and Gradle's caches and wrapper
	// distributions; their settings files stay secret.
	add("maven", "default", inHome(".m2/repository"), false)
	gradleHome, gradleFrom := c.env["GRADLE_USER_HOME"], "GRADLE_USER_HOME"
	if gradleHome == "" {
		gradleHome, gradleFrom = inHome(".gradle"), "default"
	}
	if gradleHome != "" {
		for _, sub := range []string{"caches", "wrapper", "native"} {
			add("gradle", gradleFrom+"/"+sub, filepath.Join(gradleHome, sub), false)
		}
		out.secrets = append(out.secrets, filepath.Join(gradleHome, "gradle.properties"))
	}

	for _, cand := range cands {
		cache, note := c.check(cand)
		if note != "" {
			out.notes = append(out.notes, note)
		}
		if cache.Path != "" && !slices.ContainsFunc(out.caches, func(o Cache) bool { return o.Path == cache.Path }) {
			out.caches = append(out.caches, cache)
		}
	}
	return out
}

// check turns a candidate into a cache: made when a setting names it and
// it does not exist yet, left out (with a note when a setting named it)
// when it cannot be, or when it would open too much: the home directory
// or a folder above it, or a secret location.
func (c cacheSearch) check(cand candidate) (Cache, string) {
	if !filepath.IsAbs(cand.path) {
		if cand.named {
			return Cache{}, fmt.Sprintf("%s's cache %s (%s) is left out: it is not an absolute path", cand.tool, cand.path, cand.from)
		}
		return Cache{}, ""
	}
	path := filepath.Clean(cand.path)
	if _, err := os.Lstat(path); err != nil {
		if !cand.named {
			return Cache{}, ""
		}
		// The tool would make it on first use, from inside the sandbox,
		// where it could not; so it is made now, private to the user.
		if err := os.MkdirAll(path, 0o700); err != nil {
			return Cache{}, fmt.Sprintf("%s's cache %s (%s) is not writable: %v", cand.tool, path, cand.from, err)
		}
	}
	real, err := canonical(path)
	if err != nil {
		return Cache{}, fmt.Sprintf("%s's cache %s (%s) is left out: %v", cand.tool, path, cand.from, err)
	}
	if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
		return Cache{}, fmt.Sprintf("%s's cache %s (%s) is left out: it is not a folder", cand.tool, path, cand.from)
	}
	home := c.home
	if h, err := canonical(home); err == nil {
		home = h
	}
	tooWide := real == "/" || (home != "" && fsutil.Within(real, home))
	secret := home != "" && slices.ContainsFunc(homeSecrets(), func(rel string) bool {
		s := filepath.Join(home, rel)
		return fsutil.Within(s, real) || fsutil.Within(real, s)
	})
	if tooWide || secret {
		return Cache{}, fmt.Sprintf("%s's cache %s (%s) is left out: it would open the home directory or a secret location to every command", cand.tool, path, cand.from)
	}
	return Cache{Tool: cand.tool, Path: real, From: cand.from}, ""
}

// envMap is environ as a map; the last of repeated names wins, as in
// exec.
func envMap(environ []string) map[string]string {
	m := make(map[string]string, len(environ))
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}

// lookPath finds file on the PATH of env, as a command started with env
// would.
func lookPath(file string, env map[string]string) (string, bool) {
	for _, dir := range filepath.SplitList(env["PATH"]) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // a relative PATH entry names the workspace: not run
		}
		path := filepath.Join(dir, file)
		if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return path, true
		}
	}
	return "", false
}

// runGoEnv asks the go command at path for its settings, confined by
// launcher (PATH may lead into the workspace, so the go found there is
// the workspace's to choose).
func runGoEnv(ctx context.Context, launcher proc.Launcher, path, dir string, environ []string, names ...string) (map[string]string, error) {
	ctx, cancel := context.WithTimeout(ctx, goEnvTimeout)
	defer cancel()
	var out, errOut strings.Builder
	res, err := proc.Run(ctx, proc.Spec{
		Argv: append([]string{path, "env", "-json"}, names...), Dir: dir, Env: environ,
		Stdout:   proc.Stream(func(b []byte) { out.Write(b) }),
		Stderr:   proc.Stream(func(b []byte) { errOut.Write(b) }),
		Launcher: launcher,
	})
	if err != nil {
		return nil, err
	}
	if !res.Exit.Success() {
		return nil, fmt.Errorf("%s: %s", res.Exit, strings.Join(strings.Fields(errOut.String()), " "))
	}
	vals := map[string]string{}
	if err := json.Unmarshal([]byte(out.String()), &vals); err != nil {
		return nil, fmt.Errorf("reading its output: %w", err)
	}
	return vals, nil
}
