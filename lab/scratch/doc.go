// Package scratch is where the lab's experiments put the files they write
// and read back (vector files, on-disk posting lists, index generations):
// the one place that chooses the file system for them.
//
//   - Natively: a new directory in the operating system's temporary
//     directory, on [vfs.Default]. Reads are real reads of a real device
//     and page cache (engine/store's counters come from mincore).
//   - In a browser (js/wasm, which has no files): a directory of one
//     in-memory file system shared by the tab ([vfs.NewMemLimit], limit
//     [MemLimit]). engine/store opens such files with a simulated page
//     cache and device ([store.OpenFS]): a read of a page not resident is
//     a device read priced by store.DeviceModel, so device reads and their
//     times are modelled, never measured; [Simulated] is true so
//     experiments can say so. A write past MemLimit fails with an error
//     wrapping vfs.ErrMemFull (the experiment's cell reports it; the tab
//     lives on) instead of the tab running out of memory. The Origin
//     Private File System is not used: Go's js/wasm port reaches files
//     only through a Node-like fs object, and OPFS's synchronous access
//     handles exist only in a dedicated worker's JavaScript.
package scratch
