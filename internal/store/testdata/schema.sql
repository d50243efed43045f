-- schema version 2

-- index sessions_by_cwd
CREATE INDEX sessions_by_cwd ON sessions (cwd, updated_at);

-- index sessions_by_time
CREATE INDEX sessions_by_time ON sessions (updated_at);

-- index sqlite_autoindex_entries_1
;

-- index sqlite_autoindex_prompts_1
;

-- index sqlite_autoindex_sessions_1
;

-- table blobs
CREATE TABLE blobs ( sha256 TEXT PRIMARY KEY, media_type TEXT NOT NULL, data BLOB NOT NULL ) WITHOUT ROWID;

-- table entries
CREATE TABLE entries ( session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE, seq INTEGER NOT NULL, kind TEXT NOT NULL CHECK (kind IN ('message', 'marker')), role TEXT NOT NULL DEFAULT '', body TEXT NOT NULL, model TEXT NOT NULL DEFAULT '', input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0, cache_read_tokens INTEGER NOT NULL DEFAULT 0, cache_write_tokens INTEGER NOT NULL DEFAULT 0, created_at INTEGER NOT NULL, UNIQUE (session_id, seq) );

-- table entries_fts
CREATE VIRTUAL TABLE entries_fts USING fts5 (text, tokenize = 'unicode61 remove_diacritics 2');

-- table entries_fts_config
CREATE TABLE 'entries_fts_config'(k PRIMARY KEY, v) WITHOUT ROWID;

-- table entries_fts_content
CREATE TABLE 'entries_fts_content'(id INTEGER PRIMARY KEY, c0);

-- table entries_fts_data
CREATE TABLE 'entries_fts_data'(id INTEGER PRIMARY KEY, block BLOB);

-- table entries_fts_docsize
CREATE TABLE 'entries_fts_docsize'(id INTEGER PRIMARY KEY, sz BLOB);

-- table entries_fts_idx
CREATE TABLE 'entries_fts_idx'(segid, term, pgno, PRIMARY KEY(segid, term)) WITHOUT ROWID;

-- table prompts
CREATE TABLE prompts ( project TEXT NOT NULL, seq INTEGER NOT NULL, text TEXT NOT NULL, created_at INTEGER NOT NULL, PRIMARY KEY (project, seq) );

-- table sessions
CREATE TABLE sessions ( id TEXT PRIMARY KEY, cwd TEXT NOT NULL, title TEXT NOT NULL DEFAULT '', provider TEXT NOT NULL DEFAULT '', model TEXT NOT NULL DEFAULT '', forked_from TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, messages INTEGER NOT NULL DEFAULT 0, input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0, cache_read_tokens INTEGER NOT NULL DEFAULT 0, cache_write_tokens INTEGER NOT NULL DEFAULT 0, tasks TEXT NOT NULL DEFAULT '[]' );

