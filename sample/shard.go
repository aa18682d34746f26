// shard.go: a trace's shard, and the shard this process takes from flags or the environment.

package sample

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
)

// MaxShards bounds N.
const MaxShards = 1 << 20

// Shard is this process's part: index I of N (0 ≤ I < N).
type Shard struct {
	I, N int
}

// One is the whole input: a single shard.
var One = Shard{I: 0, N: 1}

func (s Shard) String() string { return strconv.Itoa(s.I) + "/" + strconv.Itoa(s.N) }

// Of is the shard, in [0, n), of the trace with this id.
func Of(id string, n int) int {
	if n <= 1 {
		return 0
	}
	sum := sha256.Sum256([]byte("attest-shard\x00" + id))
	hi, _ := bits.Mul64(binary.BigEndian.Uint64(sum[:8]), uint64(n))
	return int(hi)
}

// Keep reports whether the trace with this id belongs to shard s.
func (s Shard) Keep(id string) bool { return s.N <= 1 || Of(id, s.N) == s.I }

// ParseShard reads "I/N".
func ParseShard(text string) (Shard, error) {
	i, n, ok := strings.Cut(text, "/")
	if !ok {
		return Shard{}, fmt.Errorf("--shard %q: want I/N, such as 0/4", text)
	}
	return newShard(i, n, "--shard "+strconv.Quote(text))
}

func newShard(i, n, what string) (Shard, error) {
	ni, err1 := strconv.Atoi(strings.TrimSpace(n))
	ii, err2 := strconv.Atoi(strings.TrimSpace(i))
	switch {
	case err1 != nil || ni < 1 || ni > MaxShards:
		return Shard{}, fmt.Errorf("%s: the shard count must be an integer from 1 to %d", what, MaxShards)
	case err2 != nil || ii < 0 || ii >= ni:
		return Shard{}, fmt.Errorf("%s: the shard index must be an integer from 0 to %d", what, ni-1)
	}
	return Shard{I: ii, N: ni}, nil
}

// FromEnv picks the shard: flag (--shard I/N) first; else, with shards
// (--shards N) > 0, JOB_COMPLETION_INDEX; else Slurm's array variables;
// else the whole input. source names where it came from, for the log.
func FromEnv(flag string, shards int, getenv func(string) string) (s Shard, source string, err error) {
	if flag != "" {
		if shards > 0 {
			return Shard{}, "", fmt.Errorf("--shard and --shards are exclusive: --shards takes the index from JOB_COMPLETION_INDEX")
		}
		s, err := ParseShard(flag)
		return s, "--shard", err
	}
	if shards > 0 {
		idx := getenv("JOB_COMPLETION_INDEX")
		if idx == "" {
			return Shard{}, "", fmt.Errorf("--shards %d: JOB_COMPLETION_INDEX is not set (a Kubernetes Indexed Job sets it)", shards)
		}
		s, err := newShard(idx, strconv.Itoa(shards), "JOB_COMPLETION_INDEX="+strconv.Quote(idx))
		return s, "JOB_COMPLETION_INDEX", err
	}
	id, count := getenv("SLURM_ARRAY_TASK_ID"), getenv("SLURM_ARRAY_TASK_COUNT")
	if id != "" && count != "" {
		idn, err := strconv.Atoi(id)
		if err != nil {
			return Shard{}, "", fmt.Errorf("SLURM_ARRAY_TASK_ID=%q is not an integer", id)
		}
		lo := 0
		if m := getenv("SLURM_ARRAY_TASK_MIN"); m != "" {
			if lo, err = strconv.Atoi(m); err != nil {
				return Shard{}, "", fmt.Errorf("SLURM_ARRAY_TASK_MIN=%q is not an integer", m)
			}
		}
		s, err := newShard(strconv.Itoa(idn-lo), count, "SLURM_ARRAY_TASK_ID="+strconv.Quote(id))
		return s, "SLURM_ARRAY_TASK_ID", err
	}
	return One, "", nil
}
