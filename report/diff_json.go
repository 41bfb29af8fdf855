package report

import (
	"encoding/json"
	"fmt"
	"io"
)

// DiffJSON writes the Report as indented JSON (schema DiffSchema).
func DiffJSON(w io.Writer, r *Report) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the diff: %w", err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
