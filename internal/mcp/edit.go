package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/shiro-neko/shiro/internal/fsutil"
)

// member is one member of a JSON object, in file order.
type member struct {
	key   string
	value json.RawMessage
}

// readObject reads a JSON object keeping its members' order; blank data is
// an empty object.
func readObject(data []byte) ([]member, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("it is not a JSON object")
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		out = append(out, member{key: key, value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

func writeObject(ms []member) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.value)
	}
	b.WriteByte('}')
	var compact, out bytes.Buffer
	if err := json.Compact(&compact, b.Bytes()); err != nil {
		return nil, err
	}
	if err := json.Indent(&out, compact.Bytes(), "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func set(ms []member, key string, v json.RawMessage) []member {
	for i := range ms {
		if ms[i].key == key {
			ms[i].value = v
			return ms
		}
	}
	return append(ms, member{key: key, value: v})
}

// SetServer returns the config file data with mcpServers.<name> set to
// def, everything else kept in its order. path names the file in errors.
func SetServer(path string, data []byte, name string, def json.RawMessage) ([]byte, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	top, err := readObject(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w; fix it first", path, err)
	}
	var servers []member
	for _, m := range top {
		if m.key == "mcpServers" && string(m.value) != "null" {
			if servers, err = readObject(m.value); err != nil {
				return nil, fmt.Errorf("%s: field \"mcpServers\": %w; fix it first", path, err)
			}
		}
	}
	inner, err := writeObject(set(servers, name, def))
	if err != nil {
		return nil, err
	}
	return writeObject(set(top, "mcpServers", inner))
}

// RemoveServer returns the config file data without mcpServers.<name>, and
// whether it was there.
func RemoveServer(path string, data []byte, name string) ([]byte, bool, error) {
	top, err := readObject(data)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w; fix it first", path, err)
	}
	for i, m := range top {
		if m.key != "mcpServers" || string(m.value) == "null" {
			continue
		}
		servers, err := readObject(m.value)
		if err != nil {
			return nil, false, fmt.Errorf("%s: field \"mcpServers\": %w; fix it first", path, err)
		}
		for j, s := range servers {
			if s.key != name {
				continue
			}
			inner, err := writeObject(append(servers[:j:j], servers[j+1:]...))
			if err != nil {
				return nil, false, err
			}
			top[i].value = inner
			out, err := writeObject(top)
			return out, true, err
		}
	}
	return data, false, nil
}

// AddToFile sets mcpServers.<name> to def in the JSON file at path (created
// with perm when missing), written atomically. def is checked as a
// definition first, so nothing unusable is written.
func AddToFile(path, name string, def json.RawMessage, perm fs.FileMode) error {
	if _, _, err := ParseServers(path, "mcpServers", OriginUser, json.RawMessage(fmt.Sprintf(`{%q:%s}`, name, def))); err != nil {
		return err
	}
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	out, err := SetServer(path, data, name, def)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, out, perm)
}

// RemoveFromFile removes mcpServers.<name> from the JSON file at path,
// reporting whether it was there.
func RemoveFromFile(path, name string) (bool, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	out, had, err := RemoveServer(path, data, name)
	if err != nil || !had {
		return false, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		return false, err
	}
	return true, fsutil.WriteFileAtomic(path, out, fi.Mode().Perm())
}
