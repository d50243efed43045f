package tools

import (
	"encoding/json"
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
		{`{"handle":1}`, "json: cannot unmarshal object into Go value of type []tools.JournalEntry"},
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
