package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// Update rewrites the config file at path with the members of patch set
// (an empty string removes the member), keeping every other member as it
// was. The file is written atomically with mode 0600, since it may hold an
// API key, two-space indented with a trailing newline. A file that is not
// a JSON object is left alone and reported, naming it.
func Update(path string, patch map[string]string) error {
	members := map[string]json.RawMessage{}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("reading %s: %w", path, err)
	case len(bytes.TrimSpace(data)) > 0:
		if err := json.Unmarshal(data, &members); err != nil {
			return fmt.Errorf("%s is not a JSON object (%s), so it was not changed. Fix the file or move it aside", path, describeJSONError(data, err))
		}
	}
	for k, v := range patch {
		if v == "" {
			delete(members, k)
			continue
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return err
		}
		members[k] = keepProviderOptions(k, members[k], bytes.TrimSpace(b.Bytes()))
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	// Keys come out sorted, so the file does not churn between writes.
	if err := enc.Encode(members); err != nil {
		return err
	}
	// Not KeepMode: a file that may now hold a key becomes 0600 even if it
	// was readable by others before.
	return fsutil.WriteAtomic(path, out.Bytes(), 0o600, fsutil.Options{MakeParents: true, SyncDir: true})
}

// MissingKey is the one line that says an API key is missing and where to
// put it: the preset's own variable, SHIRO_API_KEY, the config file, or
// /provider in the terminal UI.
func (s Settings) MissingKey(configFile string) string {
	vars := []string{s.KeyVar}
	if s.KeyVar != "SHIRO_API_KEY" {
		vars = append(vars, "SHIRO_API_KEY")
	}
	return fmt.Sprintf("no API key for %s: set %s, or apiKey in %s (in the terminal UI, /provider sets it up)",
		s.Preset.ID, strings.Join(vars, " or "), configFile)
}
