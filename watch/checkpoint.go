// checkpoint.go: with --in FILE and --state-dir, where a restart resumes
// reading: the file's identity and the first item not yet settled.

package watch

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"attest-engine/atomicfile"
	"attest-engine/safedir"
)

// checkpointFile is the checkpoint's name in the state dir.
const checkpointFile = "input.checkpoint"

// fingerprintBytes is how much of the file's start identifies it, beside
// its device and inode (as log shippers do: an inode is reused once a file
// is deleted, a rotated file keeps its inode under a new name).
const fingerprintBytes = 1024

// maxCheckpoint bounds the checkpoint file read back: a path and numbers.
const maxCheckpoint = 64 << 10

// checkpoint is the input position a restart resumes from: everything
// before Offset (the items up to Seq) is settled. Mark is the event-time
// watermark there, so that traces close where they would have.
type checkpoint struct {
	Version int    `json:"version"`
	Path    string `json:"path"` // for people: the file is known by the rest
	// Suite is the suite hash and engine version the input was read with:
	// another suite reads it again.
	Suite       string `json:"suite"`
	Dev         uint64 `json:"dev"`
	Inode       uint64 `json:"inode"`
	Fingerprint string `json:"fingerprint"` // hex SHA-256 of the first FingerBytes bytes
	FingerBytes int64  `json:"fingerprint_bytes"`
	Offset      int64  `json:"offset"`
	Seq         uint64 `json:"seq"`
	Mark        int64  `json:"mark"`
}

// identity reads f's device, inode and fingerprint.
func identity(f *os.File) (dev, ino uint64, fp string, n int64, err error) {
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, "", 0, err
	}
	dev, ino = fileID(fi)
	n = min(fi.Size(), fingerprintBytes)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
		return 0, 0, "", 0, err
	}
	sum := sha256.Sum256(buf)
	return dev, ino, hex.EncodeToString(sum[:]), n, nil
}

// readCheckpoint reads the checkpoint in dir: nil when there is none. The
// file is opened without following a link (safedir), and read to a bound.
func readCheckpoint(dir *safedir.Dir) (*checkpoint, error) {
	f, err := dir.Open(checkpointFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxCheckpoint+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxCheckpoint {
		return nil, fmt.Errorf("%s is larger than %d bytes", checkpointFile, maxCheckpoint)
	}
	var cp checkpoint
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cp); err != nil {
		return nil, fmt.Errorf("%s: %v", checkpointFile, err)
	}
	if cp.Version != 1 || cp.Offset < 0 || cp.FingerBytes < 0 || cp.FingerBytes > fingerprintBytes {
		return nil, fmt.Errorf("%s: not a version 1 checkpoint", checkpointFile)
	}
	return &cp, nil
}

// resumes says whether cp is a position in f, and why not.
func (cp *checkpoint) resumes(f *os.File) (bool, string) {
	fi, err := f.Stat()
	if err != nil {
		return false, err.Error()
	}
	if !fi.Mode().IsRegular() {
		return false, "the input is not a regular file"
	}
	dev, ino, _, _, err := identity(f)
	if err != nil {
		return false, err.Error()
	}
	if dev != cp.Dev || ino != cp.Inode {
		return false, "another file (device and inode differ)"
	}
	if fi.Size() < cp.Offset || fi.Size() < cp.FingerBytes {
		return false, "the file is shorter than the checkpoint (truncated)"
	}
	buf := make([]byte, cp.FingerBytes)
	if _, err := f.ReadAt(buf, 0); err != nil && !errors.Is(err, io.EOF) {
		return false, err.Error()
	}
	if sum := sha256.Sum256(buf); hex.EncodeToString(sum[:]) != cp.Fingerprint {
		return false, "the file's first bytes differ (replaced in place)"
	}
	return true, ""
}

// writeCheckpoint replaces the checkpoint in dir, whole or not at all
// (synced when sync).
func writeCheckpoint(dir *safedir.Dir, cp checkpoint, sync bool) error {
	b, err := json.Marshal(cp)
	if err != nil {
		return err
	}
	policy := atomicfile.NoSync
	if sync {
		policy = atomicfile.SyncAll
	}
	return dir.WriteFile(checkpointFile, 0o644, policy, func(w io.Writer) error {
		_, err := w.Write(append(b, '\n'))
		return err
	})
}
