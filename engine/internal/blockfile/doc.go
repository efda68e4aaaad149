// Package blockfile frames the engine's binary files: a magic number and a
// format version checked before anything else, then tagged sections each
// protected by a CRC-32C, then an end marker, written atomically through
// engine/vfs. Index files (engine/hnsw), IVF posting lists (engine/ivf),
// vector files (engine/store) and quantizer codebooks (engine/quant) reuse
// it, so every format gets the same crash safety and the same corruption
// errors.
//
// # File format
//
// All integers are little-endian. Part of every file format built on this
// package; never change.
//
//	offset  size  field
//	0       8     magic (chosen by the format, e.g. "VLHNSW\x00\x00")
//	8       4     format version (uint32, ≥ 1)
//	12      4     CRC-32C (Castagnoli) of bytes 0…11
//	16      …     sections, in the order the format defines:
//	                4  tag (4 ASCII bytes, e.g. "VECS")
//	                8  payload length n (uint64)
//	                n  payload
//	                4  CRC-32C of tag, length and payload
//	…       16+4  end section: tag "END!", length 8, payload = number of
//	              sections before it (uint64), CRC; nothing may follow.
//
// A section tagged "PAD " holds zeros and aligns the section after it
// ([Writer.Pad]); readers skip it (it is counted in the end section).
// "END!" and "PAD " are reserved.
//
// # Random access
//
// A format may record section offsets (a directory section) and read
// sections out of order: [Reader.SectionAt] reads and verifies one,
// [Reader.DecodeSection] verifies one the format read itself (one counted
// pread of a posting list), and [Reader.CheckEnd] checks that the file
// still ends with its end marker. [Reader.Skip] steps over a section
// without its payload CRC, for payloads that carry finer checksums of
// their own (per-vector rows read one pread at a time). [Append] builds
// the same framing in memory.
//
// # Errors
//
// A reader rejects a wrong magic (engine.ErrCorrupt) and an unknown
// version (engine.ErrVersion) before reading anything else. Every later
// problem — short file, bad length, checksum mismatch, missing end marker,
// trailing bytes — wraps engine.ErrCorrupt and names the file, the section
// and its byte offset. Nothing is allocated from an unchecked length: a
// section is read only if the file is long enough to hold it.
//
// # Atomic commit
//
// [Create] writes to "<path>.tmp-<pid>-<n>" opened with O_EXCL; [Writer.Commit]
// writes the end section, flushes, fsyncs, closes, renames over path and
// fsyncs the directory. Until Commit returns nil the old file (if any) is
// untouched; callers write
//
//	w, err := blockfile.Create(fsys, path, magic, version)
//	if err != nil { return err }
//	defer w.Abort() // removes the temporary file unless committed
//	… w.Section(…) …
//	return w.Commit()
//
// Output is deterministic: the same sections give the same bytes.
package blockfile
