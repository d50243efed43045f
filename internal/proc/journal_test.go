package proc

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDecodeJournalValidatesEntries(t *testing.T) {
	for _, c := range []struct{ data, wantErr string }{
		{``, ""},
		{`[]`, ""},
		{`[{"handle":1,"pid":10,"pgid":10,"command":"x","owner":{"pid":3}}]`, ""},
		{`[{"handle":0,"pid":10,"pgid":10,"owner":{"pid":3}}]`, "entry 0: handle 0 is not positive"},
		{`[{"handle":1,"pid":1,"pgid":10,"owner":{"pid":3}}]`, "entry 0: pid 1 is not a process shiro starts"},
		{`[{"handle":1,"pid":10,"pgid":-1,"owner":{"pid":3}}]`, "entry 0: pgid -1 is not a group shiro creates"},
		{`[{"handle":1,"pid":10,"pgid":10}]`, "entry 0: owner pid 0 is not positive"},
		{`{"handle":1}`, "json: cannot unmarshal object into Go value of type []proc.JournalEntry"},
	} {
		_, err := decodeJournal([]byte(c.data))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != c.wantErr {
			t.Errorf("%s: error %q, want %q", c.data, got, c.wantErr)
		}
	}
}

func FuzzDecodeJournal(f *testing.F) {
	f.Add([]byte(`[{"handle":1,"pid":10,"pgid":10,"command":"x","name":"n","startedAt":"2026-01-02T03:04:05Z","startTicks":5,"bootId":"b","token":"t","owner":{"pid":3,"startTicks":1,"bootId":"b"}}]`))
	f.Add([]byte(`[{"handle":1,"pid":1,"pgid":1}]`))
	f.Add([]byte(`null`))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := decodeJournal(data)
		if err != nil {
			return
		}
		for _, e := range entries {
			// Whatever a journal says, shiro must never be led to signal
			// its own group (0), every process (-1) or init (1).
			if e.PID < 2 || e.PGID < 2 || e.Handle < 1 {
				t.Fatalf("accepted entry %+v", e)
			}
		}
		if _, err := json.Marshal(entries); err != nil {
			t.Fatalf("accepted entries do not marshal: %v", err)
		}
	})
}

func writeJournal(t *testing.T, path string, entries []JournalEntry) {
	t.Helper()
	data, err := json.Marshal(entries)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	writeFile(t, path, string(data))
}

func readJournal(t *testing.T, path string) []JournalEntry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	entries, err := decodeJournal(data)
	if err != nil {
		t.Fatalf("journal %s: %v\n%s", path, err, data)
	}
	return entries
}

func TestJournalRecordReplacesOnlyItsOwnEntries(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "state", "backgrounds.json")
	foreign := JournalEntry{Handle: 9, PID: 4242, PGID: 4242, Command: "other", Owner: Identity{PID: 77, StartTicks: 5, BootID: "b"}}
	writeJournal(t, path, []JournalEntry{foreign})
	j := NewJournal(path)
	job := func(handle int) JournalEntry {
		return JournalEntry{Handle: handle, PID: 1000 + handle, PGID: 1000 + handle, Command: "sleep 300"}
	}

	if err := j.Record([]JournalEntry{job(1), job(2)}); err != nil {
		t.Fatal(err)
	}
	got := readJournal(t, path)
	if len(got) != 3 || got[0] != foreign || got[1].Handle != 1 || got[2].Handle != 2 || got[1].Owner != j.owner || j.owner.PID != os.Getpid() {
		t.Errorf("after the first record: %+v", got)
	}
	if err := j.Record([]JournalEntry{job(2)}); err != nil {
		t.Fatal(err)
	}
	if got := readJournal(t, path); len(got) != 2 || got[0] != foreign || got[1].Handle != 2 {
		t.Errorf("after the second record: %+v", got)
	}
	if err := j.Record(nil); err != nil {
		t.Fatal(err)
	}
	if got := readJournal(t, path); len(got) != 1 || got[0] != foreign {
		t.Errorf("after recording nothing: %+v", got)
	}
	if info, err := os.Stat(path); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("journal file: %v, %v", info, err)
	}
}

func TestJournalRecordRefusesACorruptJournal(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "backgrounds.json")
	writeFile(t, path, "{not json")
	err := NewJournal(path).Record([]JournalEntry{{Handle: 1, PID: 10, PGID: 10}})
	var bad *JournalError
	if !errors.As(err, &bad) || bad.Path != path || !strings.Contains(err.Error(), path+" is not valid") {
		t.Errorf("error %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "{not json" {
		t.Errorf("the corrupt journal was rewritten: %q", data)
	}
}

func TestJournalWithoutAPathRecordsNothing(t *testing.T) {
	t.Parallel()
	if err := NewJournal("").Record([]JournalEntry{{Handle: 1, PID: 10, PGID: 10}}); err != nil {
		t.Error(err)
	}
}

func TestNewJobToken(t *testing.T) {
	a, err := NewJobToken()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := NewJobToken()
	if len(a) != 32 || strings.Trim(a, "0123456789abcdef") != "" || a == b {
		t.Errorf("tokens %q and %q", a, b)
	}
}
