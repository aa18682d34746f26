// Package spool is the watch command's write-ahead spool of OTLP/HTTP
// export requests in its state dir: a request is answered 200 only once
// its body is here, so that a crash loses nothing acknowledged; after a
// restart the spool is replayed, and what has been evaluated and recorded
// is released.
//
// # Files
//
// Segments named spool-<16 hex digits>.seg, the number being the sequence
// number of the first request the segment holds (or will hold: a new
// segment is created empty, so the numbering survives a spool emptied by
// releases). Each starts with the 8 bytes "ATSPOOL\x01" and holds frames in
// the history log's framing:
//
//	uint32 little-endian  payload length (1..MaxBody+16)
//	uint32 little-endian  CRC-32C (Castagnoli) of the payload
//	payload:
//	  byte     version (1)
//	  uvarint  sequence number (consecutive from the segment's first)
//	  byte     encoding: 1 OTLP binary protobuf, 2 OTLP/JSON (traces); 3, 4 the same of logs
//	  bytes    the request body, after gzip
//
// Files are opened in the state dir through package safedir: a name that
// is a link, or not a regular file, is refused, and new segments are
// created with O_EXCL.
//
// # Durability
//
// Append writes a frame with one write call before it returns: a process
// crash (SIGKILL included) loses no appended request. With Options.Sync
// (watch --fsync always) the segment is also fsynced (and the dir, for a
// new segment), so a power loss loses none either; otherwise a power loss
// can take the latest, as for the history under the same policy. A request
// the pipeline did not take after all is cut off again (Undo) before it is
// answered, so a client's retry is not spooled twice.
//
// # Recovery
//
// Open reads every segment in order. Past a damaged frame (a bad length, a
// checksum mismatch, a sequence number out of order) the scan goes on at
// the next valid frame: where the damaged frame's header claims it ends
// when a valid frame numbered after it starts there, else the first valid
// frame found byte by byte, numbered no lower than the one expected; each
// such run is reported (Corrupt), and costs the requests its frames held,
// no others. Only a tail with no valid frame, in the last segment, is a
// request torn by a crash, and cut off (TornBytes); in an earlier segment
// it is reported. The byte-by-byte search checksums at most 4× the
// segment's size and 1 MiB besides its valid frames (crafted bytes could
// look like a header at every offset); past that it stops, reports it, and
// a last segment is left whole, the spool going on in a new one. A frame
// found by that search inside a frame whose header is damaged is taken as
// a request: a body crafted to hold a whole frame can add that one
// request, as its sender could. A whole frame larger than Options.MaxBody
// allows, its checksum right (a request taken under a larger --max-line),
// is an error of Open naming the bound that replays it: it was answered
// 200, and is never cut or searched past; its checksum is read through
// without holding it. Replay hands the records back in order, one at a
// time: memory holds one body.
//
// # Bounds
//
// The spool's files are at most Options.MaxBytes in all (default 1 GiB):
// an Append that would pass it fails with ErrFull, and the watch command
// answers 503 with Retry-After, a retryable answer in OTLP/HTTP. Release
// removes the sealed segments whose every request is settled (evaluated,
// recorded, its spans no longer kept for late ones), and rolls the active
// segment when all of it is.
package spool
