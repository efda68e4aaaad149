// Package store keeps full-precision vectors in a file and reads them back
// one vector (one checksummed row) per read, counting every read: how many
// were issued, how many bytes, and how many of the pages each read touched
// were already in the operating system's page cache before it was issued.
// That last count is what lets an experiment tell "the disk was never
// read" (Elastic's async-rescoring run, E15) from real device reads.
//
// A buffered file is read through a read-only shared mapping of it (a copy
// from the mapped page, no system call per row); O_DIRECT and read-ahead
// files are read with pread. [File.ReadVectors] reads a batch (a rescoring
// pass's candidates) with one page-cache probe per cluster of nearby rows
// and one counter update, counting what one [File.ReadVector] per id
// would have counted.
//
// The page-cache probe is mincore(2) over a read-only shared mapping of the
// file. Linux answers it for file mappings only when the caller owns the
// file or may open it for writing (kernel ≥ 5.0, commit 574823bfab82);
// files this package writes are owned by their writer. [File.Evict]
// empties the cache for the file (it drops the page-table entries of every
// mapping of the file this process holds, since
// posix_fadvise(POSIX_FADV_DONTNEED) skips mapped pages, then fsyncs and
// advises) and verifies with mincore that the pages are gone;
// [Options.Direct] reads with O_DIRECT through aligned buffers so nothing
// is cached at all.
//
// A [Model] adds a per-read latency and an IOPS ceiling on top of the real
// read, so a run on a local SSD can stand in for network-attached storage
// (EBS gp3's 3,000 baseline IOPS, E13/E26). Its String says "simulated";
// with the zero Model only the real read is timed.
//
// # File format
//
// An engine/internal/blockfile file (magic "VLABVEC\x00", format version 2;
// version 1, a 44-byte header page of its own, was never committed to any
// file and is refused as a version). Little-endian; every constant is part
// of the file format, never change it without bumping Version:
//
//	offset  size  field
//	     0    16  blockfile header: magic, version (2), CRC-32C
//	    16     …  PAD section up to offset 4084
//	  4084    12  ROWS section header (tag, length = count·(4·dim + 4))
//	  4096        count rows: dim float32 components, then the CRC-32C of
//	              those 4·dim bytes
//	     …     4  the ROWS section's CRC-32C (header and rows)
//	     …        VHDR section: dim u32, count u64, metric u8, 3 reserved
//	              zero bytes, row bytes u32 (= 4·dim + 4)
//	     …        PAD section so that the file ends on a 4096-byte page
//	end−24    24  blockfile's end marker
//
// The rows start on a page boundary and every row carries its own
// checksum, so one vector is one read at a fixed stride, verified as it
// is read; opening a file checks the header, the ROWS section's place and
// length, VHDR and the end marker without reading the rows (blockfile's
// Reader.Skip), and [File.Verify] checks every row and the section's CRC.
// The writer streams the rows (blockfile's Writer.BeginStream: the length
// is completed when the writer commits). The magic and version are checked
// before anything else; a truncated file or a bad checksum is an error
// wrapping [engine.ErrCorrupt] that names the file and the byte offset.
//
// A [File] (a vector file) and a [Blob] (any file, engine/ivf's posting
// lists) share one handle that opens, advises, maps, probes, evicts, warms
// and closes; each adds only its reads.
//
// # Concurrency
//
// A [File] and a [Blob] are safe for concurrent reads; their counters are
// atomic. Close must not run concurrently with reads. A [Writer] is used
// by one goroutine.
package store
