package profile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// MaxFileSize bounds what Read reads: a Profile of a large run (every
// block with --lines) is tens of megabytes; a file far larger is not one.
const MaxFileSize = 1 << 30

// Encode writes the Profile as indented JSON.
func Encode(w io.Writer, p *Profile) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the profile: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// Read loads a saved Profile from path, rejecting anything else with a
// message naming the file.
func Read(path string) (*Profile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not an icount profile: not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(b) > MaxFileSize {
		return nil, fmt.Errorf("%s: not an icount profile: over %d bytes", path, MaxFileSize)
	}
	return Parse(path, b)
}

// Parse decodes a saved Profile and validates it (see Check); name names
// it in errors.
func Parse(name string, b []byte) (*Profile, error) {
	var head struct {
		Schema string `json:"schema"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		return nil, fmt.Errorf("%s: not an icount profile: %v", name, err)
	}
	if head.Schema != Schema {
		if head.Schema == "" {
			return nil, fmt.Errorf("%s: not an icount profile: it has no schema", name)
		}
		return nil, fmt.Errorf("%s: profile schema %q, this icount reads %q: run the program again with this icount", name, head.Schema, Schema)
	}
	if err := present(b); err != nil {
		return nil, fmt.Errorf("%s: not a valid icount profile: %v", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: not an icount profile: %v", name, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: not an icount profile: data after the profile", name)
	}
	if err := Check(&p); err != nil {
		return nil, fmt.Errorf("%s: not a valid icount profile: %v", name, err)
	}
	return &p, nil
}

// required are the members every Profile icount writes has, by object:
// without them a Profile would read as zeros.
var required = []struct {
	path []string
	keys []string
}{
	{nil, []string{"schema", "meta", "totals", "syscalls", "functions", "hot_blocks", "exit", "processes"}},
	{[]string{"meta"}, []string{"settings", "inputs", "record"}},
	{[]string{"meta", "settings"}, []string{"icount_version", "unicorn_version", "arch", "cpu_model", "args", "env", "seed", "clock", "cpus"}},
	{[]string{"meta", "settings", "clock"}, []string{"mode", "counter_hz"}},
	{[]string{"meta", "inputs"}, []string{"cwd", "stdio"}},
	{[]string{"meta", "record"}, []string{"binary", "clock_use"}},
	{[]string{"meta", "record", "binary"}, []string{"path", "size", "sha256"}},
	{[]string{"totals"}, []string{"instructions", "blocks", "distinct_blocks", "syscalls"}},
	{[]string{"exit"}, []string{"status", "complete"}},
}

// present checks that the required members are there.
func present(b []byte) error {
	for _, r := range required {
		obj, err := object(b, r.path)
		if err != nil {
			return err
		}
		for _, k := range r.keys {
			if _, ok := obj[k]; !ok {
				return fmt.Errorf("%s has no %q", where(r.path), k)
			}
		}
	}
	return nil
}

// object is the JSON object at path in b.
func object(b []byte, path []string) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	for i := 0; ; i++ {
		if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
			return nil, fmt.Errorf("%s is not an object", where(path[:i]))
		}
		if i == len(path) {
			return obj, nil
		}
		var ok bool
		if b, ok = obj[path[i]]; !ok {
			return nil, fmt.Errorf("%s has no %q", where(path[:i]), path[i])
		}
	}
}

func where(path []string) string {
	if len(path) == 0 {
		return "the profile"
	}
	return strings.Join(path, ".")
}
