package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// MaxOutput is the most bytes of a cell's output text that are kept.
const MaxOutput = 4 << 10

// Entry is one executed cell. Output is nil when none was recorded.
type Entry struct {
	Session int
	Line    int
	Input   string
	Output  *string
}

// record is one line of the file.
type record struct {
	Session int     `json:"session"`
	Start   string  `json:"start,omitempty"`
	Line    int     `json:"line,omitempty"`
	Input   *string `json:"input,omitempty"`
	Output  *string `json:"output,omitempty"`
}

// Store is the history of one kernel session over the entries of earlier
// ones. Open it with [Open] (a file) or [Memory] (nothing kept).
type Store struct {
	mu      sync.Mutex
	f       *os.File // nil: in memory only
	path    string
	session int
	entries []Entry        // in (session, line) order
	index   map[[2]int]int // (session, line) → position in entries
}

// Memory returns a store that keeps this session's cells in memory only.
func Memory() *Store {
	return &Store{session: 1, index: map[[2]int]int{}}
}

// Open reads the history file at path (creating it and its directory) and
// starts a new session in it.
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("history: no file name")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("history: %w", err)
	}
	s := &Store{f: f, path: path, index: map[[2]int]int{}}
	unlock, err := lock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("history: locking %s: %w", path, err)
	}
	defer unlock()
	b, err := os.ReadFile(path)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("history: %w", err)
	}
	last := s.load(b)
	s.session = last + 1
	if len(b) > 0 && b[len(b)-1] != '\n' {
		// A torn last write: end its line, so the next record has its own.
		if _, err := f.Write([]byte("\n")); err != nil {
			f.Close()
			return nil, fmt.Errorf("history: %w", err)
		}
	}
	if err := s.appendLocked(record{Session: s.session, Start: time.Now().UTC().Format(time.RFC3339)}); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// load reads the records of b and returns the highest session seen.
func (s *Store) load(b []byte) int {
	last := 0
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		var r record
		if json.Unmarshal(sc.Bytes(), &r) != nil || r.Session <= 0 {
			continue // a torn or foreign line
		}
		last = max(last, r.Session)
		if r.Line <= 0 {
			continue
		}
		k := [2]int{r.Session, r.Line}
		i, ok := s.index[k]
		if !ok {
			if r.Input == nil {
				continue
			}
			s.index[k] = len(s.entries)
			s.entries = append(s.entries, Entry{Session: r.Session, Line: r.Line})
			i = len(s.entries) - 1
		}
		if r.Input != nil {
			s.entries[i].Input = *r.Input
		}
		if r.Output != nil {
			o := *r.Output
			s.entries[i].Output = &o
		}
	}
	// Concurrent kernels interleave their lines: keep (session, line) order.
	sort.SliceStable(s.entries, func(i, j int) bool {
		a, b := s.entries[i], s.entries[j]
		return a.Session < b.Session || a.Session == b.Session && a.Line < b.Line
	})
	for i, e := range s.entries {
		s.index[[2]int{e.Session, e.Line}] = i
	}
	return last
}

// Path returns the file the store appends to ("" in memory).
func (s *Store) Path() string { return s.path }

// Session returns this session's number.
func (s *Store) Session() int { return s.session }

// Close closes the file.
func (s *Store) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

func (s *Store) appendLocked(r record) error {
	if s.f == nil {
		return nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if _, err := s.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("history: appending to %s: %w", s.path, err)
	}
	return nil
}

// AddInput records the input of line (an execution count) of this session
// before it runs.
func (s *Store) AddInput(line int, input string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := [2]int{s.session, line}
	if i, ok := s.index[k]; ok {
		s.entries[i].Input = input
	} else {
		s.index[k] = len(s.entries)
		s.entries = append(s.entries, Entry{Session: s.session, Line: line, Input: input})
	}
	return s.appendLocked(record{Session: s.session, Line: line, Input: &input})
}

// AddOutput records the output text of line of this session.
func (s *Store) AddOutput(line int, output string) error {
	if len(output) > MaxOutput {
		cut := MaxOutput
		for cut > 0 && !utf8.RuneStart(output[cut]) {
			cut--
		}
		output = output[:cut] + "…"
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i, ok := s.index[[2]int{s.session, line}]
	if !ok {
		return fmt.Errorf("history: output for line %d, which has no input", line)
	}
	o := output
	s.entries[i].Output = &o
	return s.appendLocked(record{Session: s.session, Line: line, Output: &output})
}

// Tail returns the last n entries over all sessions (n ≤ 0: none).
func (s *Store) Tail(n int) []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if n <= 0 {
		return []Entry{}
	}
	from := max(0, len(s.entries)-n)
	return append([]Entry{}, s.entries[from:]...)
}

// Range returns the entries of session (0: this one, negative: counting
// back from it) with start ≤ line < stop (stop ≤ 0: to the end).
func (s *Store) Range(session, start, stop int) []Entry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if session <= 0 {
		session += s.session
	}
	out := []Entry{}
	for _, e := range s.entries {
		if e.Session == session && e.Line >= start && (stop <= 0 || e.Line < stop) {
			out = append(out, e)
		}
	}
	return out
}

// Search returns the entries whose input matches the glob pattern (as
// SQLite's GLOB, which IPython uses: * any text, ? one character, [...] a
// class, case-sensitive, matching the whole input), oldest first. With
// unique, an input that occurs several times is returned once, at its
// latest occurrence; n > 0 keeps the last n.
func (s *Store) Search(pattern string, n int, unique bool) ([]Entry, error) {
	re, err := Glob(pattern)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	out := []Entry{}
	seen := map[string]bool{}
	for i := len(s.entries) - 1; i >= 0; i-- {
		e := s.entries[i]
		if !re.MatchString(e.Input) || unique && seen[e.Input] {
			continue
		}
		seen[e.Input] = true
		out = append(out, e)
		if n > 0 && len(out) == n {
			break
		}
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// Glob compiles a GLOB pattern into an anchored regular expression.
func Glob(pattern string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString(`(?s)\A`)
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; c {
		case '*':
			b.WriteString(`.*`)
		case '?':
			b.WriteString(`.`)
		case '[':
			j := i + 1
			if j < len(pattern) && pattern[j] == '^' {
				j++
			}
			if j < len(pattern) && pattern[j] == ']' {
				j++
			}
			for j < len(pattern) && pattern[j] != ']' {
				j++
			}
			if j >= len(pattern) {
				return nil, fmt.Errorf("history: search pattern %q: unclosed [ at byte %d", pattern, i)
			}
			class := pattern[i+1 : j]
			neg := strings.HasPrefix(class, "^")
			class = strings.TrimPrefix(class, "^")
			b.WriteByte('[')
			if neg {
				b.WriteByte('^')
			}
			b.WriteString(strings.ReplaceAll(strings.ReplaceAll(class, `\`, `\\`), "[", `\[`))
			b.WriteByte(']')
			i = j
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString(`\z`)
	re, err := regexp.Compile(b.String())
	if err != nil {
		return nil, fmt.Errorf("history: search pattern %q: %w", pattern, err)
	}
	return re, nil
}

// DefaultPath is where a user's history lives: $XDG_DATA_HOME/veclab or
// ~/.local/share/veclab, file history.jsonl.
func DefaultPath() (string, error) {
	dir := os.Getenv("XDG_DATA_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("history: no home directory for the history file: %w", err)
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "veclab", "history.jsonl"), nil
}
