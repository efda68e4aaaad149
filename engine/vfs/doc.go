// Package vfs is the file-system seam of the engine: every file the engine
// writes or reads goes through an [FS], so tests can run on memory, inject
// I/O errors at any operation and simulate a machine crash.
//
// Four implementations:
//
//   - [Default]: the operating system's files.
//   - [NewMem]: an in-memory FS ([NewMemLimit]: one that refuses writes
//     past a byte limit, as a browser tab's scratch files are). [MemFS.CrashClone] returns the state a
//     machine would find after power loss: file contents as of their last
//     [File.Sync], directory entries as of the last [FS.SyncDir] of their
//     directory (pebble's vfs.NewCrashableMem follows the same model).
//   - [NewErrorFS]: wraps an FS and fails the operations an [Injector]
//     chooses (pebble's vfs/errorfs), e.g. [FailAfter] to fail the n-th one.
//   - [NewWatermark]: wraps an FS and refuses writes near a full disk, after
//     Elasticsearch's low / high / flood-stage disk watermarks, with an
//     error wrapping [ErrDiskWatermark] that names the watermark, the path,
//     the disk's usage and the bytes the write would add. Usage comes from
//     statfs(2) ([StatfsUsage], Linux) or, in tests, a [SimulatedDisk].
//
// # Disk watermarks
//
// A write is refused before any byte of it reaches the file, so a refused
// crash-safe replace fails before its Rename; the writer's Abort removes
// the temporary file (Remove is never refused) and the previous file is
// untouched.
//
// # Crash-safe writes
//
// A durable replace is: Create a temporary file (O_EXCL), write, Sync, Close,
// Rename over the target, SyncDir of the parent. The package
// engine/internal/blockfile does this behind Commit / Abort.
//
// # Concurrency
//
// Every FS here is safe for concurrent use; a File is used by one goroutine.
package vfs
