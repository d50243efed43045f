package proc

import (
	"os"
	"testing"
)

func TestParseProcStat(t *testing.T) {
	st, err := parseProcStat([]byte("42 (a) b (c)) S 1 40 40 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100 18446744073709551615"))
	if err != nil {
		t.Fatal(err)
	}
	if st != (procStat{State: 'S', PPID: 1, PGRP: 40, StartTicks: 987654}) {
		t.Errorf("parsed %+v", st)
	}
	for _, bad := range []string{"", "42 (x", "42 (x) S 1 2", "42 (x) SS 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20"} {
		if _, err := parseProcStat([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func FuzzParseProcStat(f *testing.F) {
	f.Add([]byte("42 (a) b (c)) S 1 40 40 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 100"))
	f.Add([]byte("1 (x) Z 0 1 1 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, err := parseProcStat(data)
		if err == nil && st.State == 0 {
			t.Fatalf("parsed %q without a state", data)
		}
	})
}

func TestIdentityNamesOneProcess(t *testing.T) {
	t.Parallel()
	self, err := IdentityOf(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if self.PID != os.Getpid() || self.StartTicks == 0 || self.BootID == "" || !self.Running() {
		t.Errorf("own identity %+v", self)
	}
	for name, id := range map[string]Identity{
		"earlier start":   {PID: self.PID, StartTicks: self.StartTicks - 1, BootID: self.BootID},
		"another boot":    {PID: self.PID, StartTicks: self.StartTicks, BootID: "another-boot"},
		"no start time":   {PID: self.PID, BootID: self.BootID},
		"no such process": {PID: 1 << 30, StartTicks: self.StartTicks, BootID: self.BootID},
	} {
		if id.Running() {
			t.Errorf("%s: %+v counts as running", name, id)
		}
	}
	p, err := Start(t.Context(), Spec{Argv: []string{"true"}})
	if err != nil {
		t.Fatal(err)
	}
	p.Wait()
	if id, err := IdentityOf(p.PID()); err == nil {
		t.Errorf("an exited process has identity %+v", id)
	}
}
