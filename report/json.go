package report

import (
	"bytes"
	"encoding/json"
	"fmt"
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
	if p.Schema != count.Schema {
		return nil, fmt.Errorf("%s: profile schema %q, this icount reads %q", path, p.Schema, count.Schema)
	}
	return &p, nil
}
