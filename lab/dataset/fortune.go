package dataset

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/veclab/veclab/engine"
)

// maxFortune bounds one fortune's bytes (the longest in Debian's fortunes
// is about 6 kB).
const maxFortune = 1 << 20

// ReadFortunes reads a fortune file as strfile(8) and fortune(6) define
// it: entries separated by lines holding only "%". Each entry is returned
// with its whitespace (line breaks, tabs, indentation) collapsed to single
// spaces; empty entries are dropped. Errors wrap engine.ErrCorrupt and name
// the entry and line: a line that is not UTF-8, an entry over 1 MB.
func ReadFortunes(r io.Reader) ([]string, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxFortune)
	var out []string
	var cur strings.Builder
	line, entry := 0, 0
	end := func() {
		if s := strings.Join(strings.Fields(cur.String()), " "); s != "" {
			out = append(out, s)
		}
		cur.Reset()
		entry++
	}
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if string(b) == "%" {
			end()
			continue
		}
		if !utf8.Valid(b) {
			return nil, fmt.Errorf("dataset: fortune %d, line %d: not UTF-8: %w", entry, line, engine.ErrCorrupt)
		}
		if cur.Len()+len(b) > maxFortune {
			return nil, fmt.Errorf("dataset: fortune %d, line %d: over %d bytes: %w", entry, line, maxFortune, engine.ErrCorrupt)
		}
		cur.Write(b)
		cur.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("dataset: fortune %d, line %d: %v: %w", entry, line+1, err, engine.ErrCorrupt)
	}
	end()
	return out, nil
}
