package bash

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func readPIDFile(t testing.TB, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || pid <= 1 {
		t.Fatalf("pid file %s holds %q", path, data)
	}
	return pid
}
