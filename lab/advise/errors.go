package advise

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/veclab/veclab/engine"
)

// InputError is a bad input to [Load] or [Run] in the user's terms: one
// line naming the file, and the row or column, or the option, and what to
// do about it. It wraps the sentinel a caller branches on
// (engine.ErrCorrupt, ErrDimension, ErrInvalidArgument, ErrNotFound,
// ErrEmpty, or the OS's os.ErrNotExist) without printing it, as
// profile.KnobError does: the sentinel's words ("engine: corrupt data",
// "engine: invalid argument") name the engine's category of error, which
// the user did not ask about. Nor does the line start with the package's
// name: a command that prints it prefixes its own.
type InputError struct {
	Msg string // the line, starting with the file or option it is about
	Err error  // what errors.Is finds; not printed
}

func (e *InputError) Error() string { return e.Msg }

// Unwrap makes errors.Is(err, e.Err) hold.
func (e *InputError) Unwrap() error { return e.Err }

// bad is an [InputError] wrapping is.
func bad(is error, format string, args ...any) *InputError {
	return &InputError{Msg: fmt.Sprintf(format, args...), Err: is}
}

// sentinels are the engine's categories a reader's error may wrap, most
// specific first.
var sentinels = []error{engine.ErrCorrupt, engine.ErrDimension, engine.ErrZeroVector, engine.ErrEmpty, engine.ErrVersion, engine.ErrNotFound, engine.ErrInvalidArgument}

// inUserTerms is the text of err, an error of a package below (a reader
// of lab/dataset or its ingest, lab/profile's parser) that names the row,
// record or column itself, without the sentinel's words it ends in and
// without the package and format prefixes before what it says ("dataset:
// fvecs: ", "ingest: <path>: "), and the sentinel it wraps (nil for none).
// The readers write "<pkg>: <format>: <what>: %w" (the package prefix
// first, the sentinel wrapped last), so both ends are the ones they put
// there.
func inUserTerms(err error, path string) (string, error) {
	msg := err.Error()
	var is error
	for _, s := range sentinels {
		if errors.Is(err, s) {
			is = s
			msg = strings.TrimSuffix(msg, ": "+s.Error())
			break
		}
	}
	prefixes := []string{"dataset: ", "ingest: ", "profile: ", "fvecs: ", "bvecs: ", "npy: ", "idx: ", "hdf5: "}
	if path != "" {
		prefixes = append(prefixes, path+": ", filepath.Base(path)+": ")
	}
	for trimmed := true; trimmed; {
		trimmed = false
		for _, p := range prefixes {
			if strings.HasPrefix(msg, p) {
				msg, trimmed = msg[len(p):], true
			}
		}
	}
	return msg, is
}

// readErr is a reader's error about path as an [InputError]: the file,
// the reader's words for the row or record (and its byte offset) and
// what is wrong, and what to do about a malformed row.
func readErr(path string, err error) error {
	msg, is := inUserTerms(err, path)
	if is == nil {
		is = err
	}
	switch {
	case errors.Is(err, engine.ErrCorrupt) || errors.Is(err, engine.ErrDimension):
		return &InputError{Msg: fmt.Sprintf("%s: %s: fix or drop that row (every component finite, every row of one dimension)", path, msg), Err: is}
	case errors.Is(err, engine.ErrEmpty):
		return &InputError{Msg: fmt.Sprintf("%s: %s: advise needs vectors to measure", path, msg), Err: is}
	}
	return &InputError{Msg: fmt.Sprintf("%s: %s", path, msg), Err: is}
}
