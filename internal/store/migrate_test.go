package store

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/schema.sql from the migrations")

// rawDB opens a database file without migrating it.
func rawDB(t *testing.T, path string) *sql.DB {
	t.Helper()
	db, err := openDB("file:" + path + "?_txlock=immediate")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func version(t *testing.T, db *sql.DB) int {
	t.Helper()
	var v int
	if err := db.QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// schema is the database's schema as text, one object per line, sorted.
func schema(t *testing.T, db *sql.DB) string {
	t.Helper()
	rows, err := db.Query(`SELECT type, name, COALESCE(sql, '') FROM sqlite_master ORDER BY type, name`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var typ, name, text string
		if err := rows.Scan(&typ, &name, &text); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "-- %s %s\n%s;\n\n", typ, name, strings.Join(strings.Fields(text), " "))
	}
	return b.String()
}

// TestSchemaIsPinned fails when a migration changes the schema it
// produces: released steps must never be edited (databases out there ran
// them already). Adding a step changes the schema too: review the change,
// then run `go test ./internal/store -run TestSchemaIsPinned -update`.
func TestSchemaIsPinned(t *testing.T) {
	db := rawDB(t, filepath.Join(t.TempDir(), "s.db"))
	if err := migrate(context.Background(), db, migrations); err != nil {
		t.Fatal(err)
	}
	if v := version(t, db); v != len(migrations) {
		t.Fatalf("version %d after migrating, want %d", v, len(migrations))
	}
	got := fmt.Sprintf("-- schema version %d\n\n%s", len(migrations), schema(t, db))
	golden := filepath.Join("testdata", "schema.sql")
	if *update {
		if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Fatalf("the migrations produce a schema that differs from %s:\n%s", golden, got)
	}
}

// TestEveryVersionMigratesToTheSameSchema upgrades a database left at
// each earlier version, with data in it, and checks it ends where a new
// database does.
func TestEveryVersionMigratesToTheSameSchema(t *testing.T) {
	ctx := context.Background()
	fresh := rawDB(t, filepath.Join(t.TempDir(), "fresh.db"))
	if err := migrate(ctx, fresh, migrations); err != nil {
		t.Fatal(err)
	}
	want := schema(t, fresh)
	for from := 0; from < len(migrations); from++ {
		t.Run(fmt.Sprintf("from-%d", from), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "old.db")
			old := rawDB(t, path)
			if err := migrate(ctx, old, migrations[:from]); err != nil {
				t.Fatal(err)
			}
			if version(t, old) != from {
				t.Fatalf("setup: version %d", version(t, old))
			}
			if err := migrate(ctx, old, migrations); err != nil {
				t.Fatal(err)
			}
			if got := schema(t, old); got != want {
				t.Fatalf("schema after upgrading from %d:\n%s\nwant:\n%s", from, got, want)
			}
			// And the store works on it.
			s := New(path, Options{})
			defer s.Close()
			mustAppend(t, s, head("s", "/p"), user("after the upgrade"))
			if snap, err := s.Load(ctx, "s"); err != nil || len(snap.History) != 1 {
				t.Fatalf("load after upgrade: %v", err)
			}
		})
	}
}

func TestANewerDatabaseIsRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db")
	db := rawDB(t, path)
	if _, err := db.Exec(fmt.Sprintf("PRAGMA user_version = %d", len(migrations)+3)); err != nil {
		t.Fatal(err)
	}
	s := New(path, Options{})
	defer s.Close()
	_, err := s.List(context.Background(), ListOptions{})
	if err == nil || !strings.Contains(err.Error(), "newer shiro") || !strings.Contains(err.Error(), path) {
		t.Fatalf("err = %v; want one naming the file and saying a newer shiro wrote it", err)
	}
}

func TestAFailedStepLeavesTheVersionBeforeIt(t *testing.T) {
	ctx := context.Background()
	db := rawDB(t, filepath.Join(t.TempDir(), "s.db"))
	steps := []string{
		`CREATE TABLE one (x INTEGER);`,
		`CREATE TABLE two (x INTEGER); INSERT INTO nowhere VALUES (1);`,
	}
	err := migrate(ctx, db, steps)
	if err == nil || !strings.Contains(err.Error(), "version 2") {
		t.Fatalf("err = %v", err)
	}
	if v := version(t, db); v != 1 {
		t.Fatalf("version %d after a failed second step, want 1", v)
	}
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM sqlite_master WHERE name = 'two'`).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the failed step left table two behind (%d, %v)", n, err)
	}
	// Fixed, it resumes from where it stopped.
	steps[1] = `CREATE TABLE two (x INTEGER);`
	if err := migrate(ctx, db, steps); err != nil || version(t, db) != 2 {
		t.Fatalf("resuming: %v, version %d", err, version(t, db))
	}
}
