// Package atomicfile replaces a file whole or not at all. The new content is
// written (buffered) to a temporary file in the file's directory, closed,
// and renamed over the file: rename is atomic, so a reader, or a process
// killed at any moment (SIGKILL included), finds the old content or the new
// one, never a part of either. A failed write leaves the old file as it was
// and removes its temporary file.
//
// What a power loss (not a process crash) can leave depends on the Sync
// policy the caller asks for:
//
//	NoSync    nothing is flushed: the file may come back empty or partial
//	          (XFS, ext4 mounted without auto_da_alloc), or as it was
//	SyncData  the new content is flushed before the rename: the file holds
//	          the old content or the whole new one
//	SyncAll   and the directory after the rename: once Write returns, the
//	          new content survives a power loss
//
// The engine's callers, and why:
//
//	report files (report.Spool)       NoSync: an artefact a rerun writes again;
//	                                  only over a regular file or nothing (a
//	                                  rename would replace a device, a FIFO or
//	                                  a link: those are written through)
//	the provider cache (cache_dir)    SyncData: a vector cut short can decode as
//	                                  a shorter one (provider/cache.go)
//	history's summaries.json          SyncAll, whatever the fsync policy: the
//	                                  segments it covers are removed after it
//
// A process killed between creating the temporary file and renaming it
// leaves the temporary file behind (".NAME.tmp" and a random number, beside NAME);
// RemoveTemps clears them where the caller knows no write is in flight
// (history, under its lock); report files, which other processes may be
// writing, clear them by age (RemoveStaleTemps), and so does the provider
// cache, whose directory other processes may share.
package atomicfile
