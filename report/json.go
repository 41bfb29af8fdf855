package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/icount-dev/icount/count"
)

// WriteJSON writes the Profile as indented JSON to path.
func WriteJSON(path string, p *count.Profile) error {
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the profile: %w", err)
	}
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the profile: %w", err)
	}
	return nil
}

// ReadJSON loads a Profile saved by WriteJSON, rejecting anything else
// with a message naming the file.
func ReadJSON(path string) (*count.Profile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseJSON(path, b)
}

// ParseJSON decodes a saved Profile; path names it in errors.
func ParseJSON(path string, b []byte) (*count.Profile, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var p count.Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("%s: not an icount profile: %v", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("%s: not an icount profile: data after the profile", path)
	}
	if p.Schema != count.Schema {
		return nil, fmt.Errorf("%s: profile schema %q, this icount reads %q", path, p.Schema, count.Schema)
	}
	if err := check(&p); err != nil {
		return nil, fmt.Errorf("%s: not a valid icount profile: %v", path, err)
	}
	return &p, nil
}

// check rejects what icount never writes and what the formats and the diff
// could not use safely: a call tree whose parents do not come before their
// children.
func check(p *count.Profile) error {
	for i, n := range p.CallTree {
		if i == 0 && n.Parent != -1 || i > 0 && (n.Parent < 0 || n.Parent >= i) {
			return fmt.Errorf("call_tree node %d has parent %d", i, n.Parent)
		}
	}
	return nil
}
