package dataset

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"

	"github.com/veclab/veclab/engine"
	"github.com/veclab/veclab/engine/vec"
	"github.com/veclab/veclab/engine/vfs"
)

// Layout is what WriteLayout writes into a data set directory.
type Layout struct {
	Base, Queries *vec.Matrix
	// Truth, when not nil, is written as groundtruth.ivecs (ids only) and
	// as the truth cache file Real.Truth reads, so a fresh directory
	// needs no exact search.
	Truth *GroundTruth
	// Given, when not nil, is the source's own neighbour lists (one row a
	// query, nearest first), written as groundtruth.ivecs in place of
	// Truth's ids; Truth still seeds the truth cache.
	Given [][]int32
	// Labels, when not nil, are written as base-labels.ivecs.
	Labels []int32
	// IDs, when not nil, are written as ids.txt, one a line: the source's
	// id of each base row then of each query row.
	IDs []string
	// Words, when not nil, are written as words.txt, one a line: what each
	// base row then each query row stands for.
	Words    []string
	Manifest Manifest
}

// PartialSuffix marks a directory WriteLayout has not finished; Open is
// never pointed at one, and the next WriteLayout of the same name removes
// it.
const PartialSuffix = ".partial"

// WriteLayout writes l as a data set directory dir — base.fvecs,
// query.fvecs, groundtruth.ivecs and base-labels.ivecs when given,
// dataset.json with every file's SHA-256 — into a sibling temporary
// directory, verifies it (checksums re-read, then [Open]) and only then
// renames it to dir. An existing dir is an error (nothing already written
// is lost); an interrupted write leaves only dir+PartialSuffix+"-*",
// which is never read.
func WriteLayout(dir string, l Layout) error {
	if l.Base == nil || l.Queries == nil {
		return fmt.Errorf("dataset: WriteLayout: no vectors: %w", engine.ErrInvalidArgument)
	}
	if l.Base.Dim != l.Queries.Dim {
		return fmt.Errorf("dataset: WriteLayout: base has %d dimensions, queries %d: %w", l.Base.Dim, l.Queries.Dim, engine.ErrDimension)
	}
	if exists(dir) {
		return fmt.Errorf("dataset: %s exists; remove it to rewrite: %w", dir, engine.ErrInvalidArgument)
	}
	parent := filepath.Dir(dir)
	if err := dataFS.MkdirAll(parent); err != nil {
		return err
	}
	if names, err := dataFS.List(parent); err == nil {
		for _, n := range names {
			if strings.HasPrefix(n, filepath.Base(dir)+PartialSuffix+"-") {
				vfs.RemoveAll(dataFS, filepath.Join(parent, n))
			}
		}
	}
	tmp := tempName(dir + PartialSuffix + "-")
	if exists(tmp) {
		return fmt.Errorf("dataset: WriteLayout: %s exists: %w", tmp, fs.ErrExist)
	}
	if err := dataFS.MkdirAll(tmp); err != nil {
		return err
	}
	done := false
	defer func() {
		if !done {
			vfs.RemoveAll(dataFS, tmp)
		}
	}()
	mf := l.Manifest
	mf.Base, mf.Queries, mf.Dim = l.Base.N, l.Queries.N, l.Base.Dim
	mf.SHA256 = map[string]string{}
	put := func(name string, fill func(io.Writer) error) error {
		f, err := dataFS.Create(filepath.Join(tmp, name))
		if err != nil {
			return err
		}
		h := sha256.New()
		bw := bufio.NewWriterSize(io.MultiWriter(f, h), 1<<16)
		err = fill(bw)
		if err == nil {
			err = bw.Flush()
		}
		if err != nil {
			f.Close()
			return fmt.Errorf("%s: %w", filepath.Join(dir, name), err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return err
		}
		if err := f.Close(); err != nil {
			return err
		}
		mf.SHA256[name] = hex.EncodeToString(h.Sum(nil))
		return nil
	}
	if err := put("base.fvecs", func(w io.Writer) error { return WriteFvecs(w, l.Base) }); err != nil {
		return err
	}
	if err := put("query.fvecs", func(w io.Writer) error { return WriteFvecs(w, l.Queries) }); err != nil {
		return err
	}
	if l.Given != nil {
		if len(l.Given) != l.Queries.N {
			return fmt.Errorf("dataset: WriteLayout: %d neighbour lists for %d queries: %w", len(l.Given), l.Queries.N, engine.ErrInvalidArgument)
		}
		if err := put("groundtruth.ivecs", func(w io.Writer) error { return WriteIvecs(w, l.Given) }); err != nil {
			return err
		}
	} else if l.Truth != nil {
		rows := make([][]int32, len(l.Truth.IDs))
		for i, ids := range l.Truth.IDs {
			rows[i] = make([]int32, len(ids))
			for j, id := range ids {
				rows[i][j] = int32(id)
			}
		}
		if err := put("groundtruth.ivecs", func(w io.Writer) error { return WriteIvecs(w, rows) }); err != nil {
			return err
		}
	}
	if l.Labels != nil {
		rows := make([][]int32, len(l.Labels))
		for i, x := range l.Labels {
			rows[i] = []int32{x}
		}
		if err := put("base-labels.ivecs", func(w io.Writer) error { return WriteIvecs(w, rows) }); err != nil {
			return err
		}
	}
	for _, lines := range []struct {
		file, what string
		rows       []string
	}{{"words.txt", "word", l.Words}, {"ids.txt", "id", l.IDs}} {
		if lines.rows == nil {
			continue
		}
		if len(lines.rows) != l.Base.N+l.Queries.N {
			return fmt.Errorf("dataset: WriteLayout: %d %ss for %d base and %d query rows: %w", len(lines.rows), lines.what, l.Base.N, l.Queries.N, engine.ErrInvalidArgument)
		}
		for i, w := range lines.rows {
			if strings.ContainsAny(w, "\n\r") {
				return fmt.Errorf("dataset: WriteLayout: %s %d (%q) holds a line break: %w", lines.what, i, w, engine.ErrInvalidArgument)
			}
		}
		if err := put(lines.file, func(w io.Writer) error {
			_, err := io.WriteString(w, strings.Join(lines.rows, "\n")+"\n")
			return err
		}); err != nil {
			return err
		}
	}
	b, err := json.MarshalIndent(mf, "", "  ")
	if err != nil {
		return err
	}
	if err := vfs.WriteFile(dataFS, filepath.Join(tmp, ManifestFile), append(b, '\n')); err != nil {
		return err
	}
	if err := VerifyDir(tmp); err != nil {
		return fmt.Errorf("verifying %s before renaming it: %w", tmp, err)
	}
	r, err := Open(tmp)
	if err != nil {
		return fmt.Errorf("verifying %s before renaming it: %w", tmp, err)
	}
	if l.Truth != nil {
		// Seed the truth cache, keyed by the content just verified.
		path := filepath.Join(tmp, truthCacheName(r.Dataset.Hash(), l.Truth.K, l.Truth.Metric))
		if err := writeFile(path, func(w io.Writer) error { return writeTruth(w, l.Truth, r.Dataset.Hash()) }); err != nil {
			return err
		}
	}
	if err := dataFS.SyncDir(tmp); err != nil {
		return err
	}
	if err := dataFS.Rename(tmp, dir); err != nil {
		return err
	}
	done = true
	return dataFS.SyncDir(parent)
}

// VerifyDir checks every file dataset.json lists against its SHA-256; the
// error names each file that is missing or differs, with both sums. A
// directory without a manifest, or a manifest without sums, verifies
// trivially.
func VerifyDir(dir string) error {
	b, err := vfs.ReadFile(dataFS, filepath.Join(dir, ManifestFile))
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	var mf Manifest
	if err := json.Unmarshal(b, &mf); err != nil {
		return fmt.Errorf("dataset: %s: %v: %w", filepath.Join(dir, ManifestFile), err, engine.ErrCorrupt)
	}
	names := make([]string, 0, len(mf.SHA256))
	for n := range mf.SHA256 {
		names = append(names, n)
	}
	sort.Strings(names)
	var bad []string
	for _, n := range names {
		if strings.ContainsAny(n, `/\`) || n == ".." {
			bad = append(bad, fmt.Sprintf("%s: not a file name of the directory", n))
			continue
		}
		got, err := fileSHA256(filepath.Join(dir, n))
		if err != nil {
			bad = append(bad, err.Error())
			continue
		}
		if got != mf.SHA256[n] {
			bad = append(bad, fmt.Sprintf("%s: SHA-256 %s, %s says %s", filepath.Join(dir, n), got, ManifestFile, mf.SHA256[n]))
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("dataset: checksum mismatch: %s: %w", strings.Join(bad, "; "), engine.ErrCorrupt)
	}
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := dataFS.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
