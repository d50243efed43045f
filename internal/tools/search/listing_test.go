package search

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shiro-neko/shiro/internal/workspace/wstest"
)

func TestFindFiles(t *testing.T) {
	t.Parallel()
	env := wstest.Env(t, map[string]string{
		".gitignore":          "build/\n",
		"Config.yaml":         "",
		"src/config/a.go":     "",
		"src/app_config.go":   "",
		"build/config.out":    "",
		"other.txt":           "",
		"node_modules/config": "",
	})
	got := family.Ok(t, env, "find_files", map[string]any{"name": "CONFIG"})
	if got != "Config.yaml\nsrc/app_config.go\nsrc/config/" {
		t.Errorf("got %q", got)
	}
	got = family.Ok(t, env, "find_files", map[string]any{"name": "config", "limit": 2})
	if got != "Config.yaml\nsrc/app_config.go\n[first 2 shown; there are more]" {
		t.Errorf("limit 2: %q", got)
	}
	if got := family.Ok(t, env, "find_files", map[string]any{"name": "zzz"}); got != `No file names contain "zzz".` {
		t.Errorf("none: %q", got)
	}
	if msg := family.Refuse(t, env, "find_files", map[string]any{"name": ""}).Err.Error(); !strings.HasPrefix(msg, "name is required") {
		t.Errorf("empty: %q", msg)
	}
	if msg := family.Refuse(t, env, "find_files", map[string]any{"name": "a", "limit": 0}).Err.Error(); msg != "limit must be at least 1; got 0" {
		t.Errorf("limit 0: %q", msg)
	}
	if msg := family.Refuse(t, env, "find_files", map[string]any{"name": "a", "limit": 1001}).Err.Error(); msg != "limit must be at most 1000; got 1001" {
		t.Errorf("limit 1001: %q", msg)
	}
}

func TestRecentFiles(t *testing.T) {
	t.Parallel()
	env := wstest.Env(t, map[string]string{
		".gitignore": "ignored.txt\n",
		"old.txt":    "", "mid.txt": "", "new.txt": "", "sub/newest.txt": "", "ignored.txt": "",
	})
	base := time.Date(2024, 5, 6, 7, 8, 9, 0, time.Local)
	for name, age := range map[string]int{".gitignore": 10, "old.txt": 3, "mid.txt": 2, "new.txt": 1, "sub/newest.txt": 0, "ignored.txt": -1} {
		when := base.Add(-time.Duration(age) * time.Hour)
		if err := os.Chtimes(filepath.Join(env.Root, name), when, when); err != nil {
			t.Fatal(err)
		}
	}
	got := family.Ok(t, env, "recent_files", map[string]any{"limit": 3})
	want := "2024-05-06 07:08:09  sub/newest.txt\n2024-05-06 06:08:09  new.txt\n2024-05-06 05:08:09  mid.txt"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if got := family.Ok(t, env, "recent_files", nil); strings.Count(got, "\n") != 4 {
		t.Errorf("default limit: %q", got)
	}
	if msg := family.Refuse(t, env, "recent_files", map[string]any{"limit": 201}).Err.Error(); msg != "limit must be at most 200; got 201" {
		t.Errorf("limit: %q", msg)
	}
}
