package fixedclock

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// Table is a parsed --clock-table: the values reads return, in order.
type Table struct {
	Name   string  // the file it came from, for messages
	Values []int64 // nanoseconds, strictly increasing, at least one
	SHA256 string  // of the file's bytes, hex
}

// MaxTableLine bounds one line of a table file.
const MaxTableLine = 4096

// TableError is a malformed table, with the line it was found on (0 when
// it is about the whole file).
type TableError struct {
	Name string
	Line int
	Msg  string
}

func (e *TableError) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("clock table %s: %s", e.Name, e.Msg)
	}
	return fmt.Sprintf("clock table %s, line %d: %s", e.Name, e.Line, e.Msg)
}

// ReadTable reads and parses a table file.
func ReadTable(path string) (*Table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("clock table: %w", err)
	}
	return ParseTable(path, b)
}

// ParseTable parses a table: one integer number of nanoseconds per line,
// strictly increasing. Blank lines are skipped; '#' starts a comment that
// runs to the end of the line. name is used in errors.
func ParseTable(name string, data []byte) (*Table, error) {
	t := &Table{Name: name}
	sum := sha256.Sum256(data)
	t.SHA256 = hex.EncodeToString(sum[:])
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 256), MaxTableLine)
	line, prevLine := 0, 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		v, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			msg := fmt.Sprintf("%q is not an integer number of nanoseconds", clip(text))
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				msg = fmt.Sprintf("%s is out of range (nanoseconds in a signed 64-bit integer)", clip(text))
			}
			return nil, &TableError{name, line, msg}
		}
		if n := len(t.Values); n > 0 && v <= t.Values[n-1] {
			return nil, &TableError{name, line, fmt.Sprintf("%d is not after %d (line %d): values must increase strictly", v, t.Values[n-1], prevLine)}
		}
		t.Values = append(t.Values, v)
		prevLine = line
	}
	if err := sc.Err(); err != nil {
		if err == bufio.ErrTooLong {
			return nil, &TableError{name, line + 1, fmt.Sprintf("line longer than %d bytes", MaxTableLine)}
		}
		return nil, &TableError{name, line, err.Error()}
	}
	if len(t.Values) == 0 {
		return nil, &TableError{name, 0, "no values (one integer number of nanoseconds per line)"}
	}
	return t, nil
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// ParseTime parses --clock-start: an integer number of nanoseconds, a Go
// duration ("90s", "1h"), or an RFC 3339 date ("2024-01-01T00:00:00Z",
// taken as nanoseconds since the Unix epoch).
func ParseTime(s string) (int64, error) {
	if v, err := strconv.ParseInt(s, 10, 64); err == nil {
		return v, nil
	}
	if d, err := time.ParseDuration(s); err == nil {
		return int64(d), nil
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		if y := t.Year(); y < 1678 || y > 2261 {
			return 0, fmt.Errorf("%q is outside the years 1678 to 2261 that nanoseconds in 64 bits can hold", s)
		}
		return t.UnixNano(), nil
	}
	return 0, fmt.Errorf("%q is neither nanoseconds, a duration (90s, 1h) nor an RFC 3339 date (2024-01-01T00:00:00Z)", s)
}
