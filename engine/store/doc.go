// Package store keeps full-precision vectors in a file and reads them back
// one vector per positioned read (pread), counting every read: how many were
// issued, how many bytes, and how many of the pages each read touched were
// already in the operating system's page cache before it was issued. That
// last count is what lets an experiment tell "the disk was never read"
// (Elastic's async-rescoring run, E15) from real device reads.
//
// The page-cache probe is mincore(2) over a read-only shared mapping of the
// file. Linux answers it for file mappings only when the caller owns the
// file or may open it for writing (kernel ≥ 5.0, commit 574823bfab82);
// files this package writes are owned by their writer. [File.Evict] empties
// the cache for the file (fsync, then posix_fadvise(POSIX_FADV_DONTNEED)) and
// verifies with mincore that the pages are gone; [Options.Direct] reads with
// O_DIRECT through aligned buffers so nothing is cached at all.
//
// A [Model] adds a per-read latency and an IOPS ceiling on top of the real
// read, so a run on a local SSD can stand in for network-attached storage
// (EBS gp3's 3,000 baseline IOPS, E13/E26). Its String says "simulated";
// with the zero Model only the real read is timed.
//
// # File format
//
// Little-endian. Every constant below is part of the file format; never
// change it without bumping Version.
//
//	offset  size  field
//	     0     8  magic "VLABVEC\x00"
//	     8     4  version (1)
//	    12     4  dim
//	    16     8  count
//	    24     1  metric (engine.Metric)
//	    25     3  reserved, zero
//	    28     4  row bytes = 4·dim + 4
//	    32     8  data offset (4096)
//	    40     4  CRC-32C (Castagnoli) of bytes 0…39
//	    44  4052  zero
//	  4096        count rows: dim float32 components, then the CRC-32C of
//	              those 4·dim bytes
//	   end        zero padding to a multiple of 4096
//
// The data starts on a page boundary and every row carries its own
// checksum, so one vector is one pread, verified as it is read. The magic
// and version are checked before anything else; a truncated file or a bad
// checksum is an error wrapping [engine.ErrCorrupt] that names the file and
// the byte offset. This package frames its own header rather than using
// engine/internal/blockfile because it must control page alignment and the
// per-row layout that single-pread reads rely on.
//
// # Concurrency
//
// A [File] is safe for concurrent reads; its counters are atomic. A
// [Writer] is used by one goroutine.
package store
