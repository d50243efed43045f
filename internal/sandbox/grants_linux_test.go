package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

// The read grants are reused while the folders they were carved from are
// unchanged, and carved again as soon as one changes: a file made in the
// home folder after one command is readable by the next, and a secret
// made there is not.
func TestReadGrantsFollowTheFoldersTheyWereCarvedFrom(t *testing.T) {
	home := t.TempDir()
	for _, dir := range []string{".ssh", "src"} {
		if err := os.Mkdir(filepath.Join(home, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Every folder here is new; judged from an hour on, none is racy.
	c := &rulesetCache{now: func() time.Time { return time.Now().Add(time.Hour) }}
	secrets := []string{filepath.Join(home, ".ssh")}
	first, stamp := c.readGrants(secrets)
	if stamp == "" {
		t.Fatal("no stamp for folders an hour old")
	}
	if !slices.Contains(first, filepath.Join(home, "src")) || slices.Contains(first, secrets[0]) {
		t.Fatalf("grants %v: want %s/src and not the secret", first, home)
	}
	// (Whether the second call reuses the first listing depends on the
	// folders above the test's, which other programs may change.)
	if again, _ := c.readGrants(secrets); !slices.Equal(again, first) {
		t.Fatalf("unchanged folders: grants %v then %v", first, again)
	}

	// A file and a secret appear in the home folder. Its times are set
	// apart from the first stamp's, as the next clock tick would.
	made := filepath.Join(home, "notes.txt")
	if err := os.WriteFile(made, []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	aws := filepath.Join(home, ".aws")
	if err := os.Mkdir(aws, 0o700); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(home, later, later); err != nil {
		t.Fatal(err)
	}
	secrets = append(secrets, aws)
	got, stamp3 := c.readGrants(secrets)
	if stamp3 == stamp {
		t.Error("the stamp did not change with the home folder")
	}
	if !slices.Contains(got, made) {
		t.Errorf("grants %v lack the new file %s", got, made)
	}
	if slices.Contains(got, aws) {
		t.Errorf("grants %v include the new secret %s", got, aws)
	}

	// The same secrets again but the folder changed (the file went):
	// the stamp of the old listing must not be reused.
	if err := os.Remove(made); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(home, later.Add(time.Minute), later.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.readGrants(secrets); slices.Contains(got, made) {
		t.Errorf("grants %v still name the removed %s", got, made)
	}
}

// A folder changed within the last moments could change again within the
// same timestamp: its listing is not kept, and the stamp names its
// entries' files, so that replacing one changes the key.
func TestAFolderJustChangedIsNotStamped(t *testing.T) {
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(home, "src")
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	c := &rulesetCache{}
	secrets := []string{filepath.Join(home, ".ssh")}
	_, stamp := c.readGrants(secrets)
	if _, kept := c.listing.folders[home]; kept {
		t.Error("a racy listing was kept")
	}
	if err := os.Rename(src, src+".old"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(src, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, again := c.readGrants(secrets); again == stamp {
		t.Errorf("the stamp %q did not change when %s was replaced", stamp, src)
	}
}

// Each folder is judged by its own times: one that just changed is
// listed again, and the others, unchanged, are not (a busy /tmp above
// the state folder made every command list them all twice, issue 27).
func TestOnlyTheFolderThatChangedIsListedAgain(t *testing.T) {
	home := t.TempDir()
	for _, dir := range []string{".ssh", ".config/gh"} {
		if err := os.MkdirAll(filepath.Join(home, dir), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	listed := map[string]int{}
	hour := time.Now().Add(time.Hour)
	c := &rulesetCache{
		now: func() time.Time { return hour },
		readDir: func(dir string) ([]os.DirEntry, error) {
			listed[dir]++
			return os.ReadDir(dir)
		},
	}
	secrets := []string{filepath.Join(home, ".ssh"), filepath.Join(home, ".config", "gh")}
	first, _ := c.readGrants(secrets)
	config := filepath.Join(home, ".config")
	if listed[home] != 1 || listed[config] != 1 || listed["/"] != 1 {
		t.Fatalf("first carve listed %v, want each folder once", listed)
	}
	made := filepath.Join(config, "notes")
	if err := os.WriteFile(made, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	// Changed just now, as the clock above sees it.
	if err := os.Chtimes(config, hour, hour); err != nil {
		t.Fatal(err)
	}
	got, _ := c.readGrants(secrets)
	if listed[config] != 2 {
		t.Errorf("%s, just changed, listed %d times, want 2", config, listed[config])
	}
	if listed[home] != 1 || listed["/"] != 1 {
		t.Errorf("unchanged folders listed again: %v", listed)
	}
	want := append(slices.Clone(first), made)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("grants %v, want %v", got, want)
	}
}

// The ruleset's key stands for the read grants' files by the stamp, and
// for every other path by its file.
func TestTheRulesetKeyChangesWithTheStampOrAWritableFolder(t *testing.T) {
	dir := t.TempDir()
	rules := fsRules{List: []string{"/"}, Read: []string{"/usr"}, Write: []string{dir}, readStamp: "a"}
	k1, err := rulesetKey(rules)
	if err != nil {
		t.Fatal(err)
	}
	rules.readStamp = "b"
	if k2, _ := rulesetKey(rules); k2 == k1 {
		t.Error("the key did not change with the read grants' stamp")
	}
	replaced := dir + ".new"
	if err := os.Mkdir(replaced, 0o755); err != nil {
		t.Fatal(err)
	}
	before, _ := rulesetKey(rules)
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(replaced, dir); err != nil {
		t.Fatal(err)
	}
	if after, _ := rulesetKey(rules); after == before {
		t.Error("the key did not change when the writable folder was replaced")
	}
}
