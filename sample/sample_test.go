package sample

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/sample")

func rate(t testing.TB, s string) Rate {
	r, err := ParseRate(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// genIDs are n trace ids: 32 hex digits from SHA-256 of a counter, every
// tenth one an Attest-style id instead (hashed for its randomness).
func genIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(i))
		sum := sha256.Sum256(b[:])
		if i%10 == 9 {
			ids[i] = fmt.Sprintf("trc_%d", i)
		} else {
			ids[i] = hex.EncodeToString(sum[:16])
		}
	}
	return ids
}

func TestThreshold(t *testing.T) {
	tests := []struct {
		rate string
		want uint64
	}{
		{"0", 1 << 56},
		{"1", 0},
		{"0.5", 1 << 55},
		{"0.25", 3 << 54},
		{"0.1", 0xe6666666666666},  // 0.9·2⁵⁶ = 64851834634215014.4 → …14
		{"1e-1", 0xe6666666666666}, // the same rate in another spelling
		{"0.3", 0xb3333333333333},  // 0.7·2⁵⁶ = 50440315826611678.8 → …79
		// Exactly halfway: rates of an odd multiple of 2⁻⁵⁷ (written out in
		// full: a binary fraction is a finite decimal) round half up.
		{"0.000000000000000006938893903907228377647697925567626953125", 1 << 56},   // 2⁻⁵⁷: 2⁵⁶ − ½ → 2⁵⁶
		{"6.938893903907228377647697925567626953125e-18", 1 << 56},                 // the same in another spelling
		{"0.000000000000000020816681711721685132943093776702880859375", 1<<56 - 1}, // 3·2⁻⁵⁷: 2⁵⁶ − 1½ → 2⁵⁶ − 1
		{"0.500000000000000006938893903907228377647697925567626953125", 1 << 55},   // ½ + 2⁻⁵⁷: 2⁵⁵ − ½ → 2⁵⁵
	}
	for _, tt := range tests {
		if got := rate(t, tt.rate).Threshold(); got != tt.want {
			t.Errorf("threshold(%s) = %#x, want %#x", tt.rate, got, tt.want)
		}
	}
	for _, bad := range []string{"", "-0.1", "1.5", "x", "1/2", "NaN"} {
		if _, err := ParseRate(bad); err == nil {
			t.Errorf("ParseRate(%q) accepted", bad)
		}
	}
}

// TestOTelRule: the decision at the threshold, on a trace id's last 56 bits.
func TestOTelRule(t *testing.T) {
	half := rate(t, "0.5")
	tests := []struct {
		id   string
		want bool
	}{
		{"ffffffffffffffffff80000000000000", true},  // R = 2⁵⁵ = T: kept
		{"ffffffffffffffffff7fffffffffffff", false}, // R = T − 1
		{"0000000000000000ff7fffffffffffff", false}, // the 57th bit and above do not count
		{"00000000000000000080000000000000", true},
		{"00000000000000000080000000000000", true},
	}
	for _, tt := range tests {
		if got := half.Keep(tt.id); got != tt.want {
			t.Errorf("Keep(%s) at 0.5 = %v, want %v", tt.id, got, tt.want)
		}
	}
	if Randomness("FFFFFFFFFFFFFFFFFF80000000000000") != 1<<55 {
		t.Error("upper-case hex ids are trace ids too")
	}
}

// TestNested: rate 0 keeps none, 1 keeps all, and 10% ⊂ 25% ⊂ 50% over 10⁶ ids.
func TestNested(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 100_000
	}
	ids := genIDs(n)
	rates := []Rate{rate(t, "0"), rate(t, "0.1"), rate(t, "0.25"), rate(t, "0.5"), rate(t, "1")}
	want := []float64{0, 0.1, 0.25, 0.5, 1}
	counts := make([]int, len(rates))
	for _, id := range ids {
		prev := false
		for i, r := range rates {
			k := r.Keep(id)
			if prev && !k {
				t.Fatalf("id %s kept at %s but not at %s", id, rates[i-1], r)
			}
			prev = k
			if k {
				counts[i]++
			}
		}
	}
	for i, c := range counts {
		got := float64(c) / float64(n)
		if (want[i] == 0 || want[i] == 1) && got != want[i] || got < want[i]-0.005 || got > want[i]+0.005 {
			t.Errorf("rate %s kept %.4f of the ids", rates[i], got)
		}
	}
}

func readIDs(t *testing.T) []string {
	f, err := os.Open("../testdata/sample/ids.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var ids []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		ids = append(ids, sc.Text())
	}
	return ids
}

// TestGoldenKept pins the kept subsets and shard assignment of a committed
// id file by their SHA-256: a change to either rule shows up here.
func TestGoldenKept(t *testing.T) {
	ids := readIDs(t)
	var b strings.Builder
	for _, r := range []string{"0.1", "0.25", "0.5"} {
		h := sha256.New()
		n := 0
		for _, id := range ids {
			if rate(t, r).Keep(id) {
				fmt.Fprintln(h, id)
				n++
			}
		}
		fmt.Fprintf(&b, "sample %s: %d kept, sha256 %x\n", r, n, h.Sum(nil))
	}
	for _, n := range []int{2, 3, 7} {
		h := sha256.New()
		for _, id := range ids {
			fmt.Fprintln(h, Of(id, n))
		}
		fmt.Fprintf(&b, "shards %d: sha256 %x\n", n, h.Sum(nil))
	}
	path := "../testdata/sample/kept.golden"
	if *update {
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(want), b.String()); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

// TestShards: for N = 1, 2, 3, 7 every id is in exactly one shard, shards
// are about even, and each samples at the rate (the hashes are independent).
func TestShards(t *testing.T) {
	ids := genIDs(200_000)
	tenth := rate(t, "0.1")
	for _, n := range []int{1, 2, 3, 7} {
		sizes, sampled := make([]int, n), make([]int, n)
		for _, id := range ids {
			in := 0
			for i := range n {
				if (Shard{I: i, N: n}).Keep(id) {
					in++
					sizes[i]++
					if tenth.Keep(id) {
						sampled[i]++
					}
				}
			}
			if in != 1 {
				t.Fatalf("N=%d: id %s in %d shards", n, id, in)
			}
		}
		for i := range n {
			share := float64(sizes[i]) * float64(n) / float64(len(ids))
			frac := float64(sampled[i]) / float64(sizes[i])
			if share < 0.97 || share > 1.03 || frac < 0.09 || frac > 0.11 {
				t.Errorf("N=%d shard %d: %.3f of an even share, %.3f sampled at 0.1", n, i, share, frac)
			}
		}
	}
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name   string
		flag   string
		shards int
		env    map[string]string
		want   string
		err    string
	}{
		{"nothing", "", 0, nil, "0/1", ""},
		{"flag", "2/7", 0, map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "3"}, "2/7", ""},
		{"kubernetes", "", 4, map[string]string{"JOB_COMPLETION_INDEX": "3"}, "3/4", ""},
		{"kubernetes without index", "", 4, nil, "", "--shards 4: JOB_COMPLETION_INDEX is not set (a Kubernetes Indexed Job sets it)"},
		{"kubernetes index out of range", "", 4, map[string]string{"JOB_COMPLETION_INDEX": "4"}, "", `JOB_COMPLETION_INDEX="4": the shard index must be an integer from 0 to 3`},
		{"slurm from 0", "", 0, map[string]string{"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "0"}, "2/3", ""},
		{"slurm from 1", "", 0, map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "3", "SLURM_ARRAY_TASK_MIN": "1"}, "2/3", ""},
		{"bad flag", "3/3", 0, nil, "", `--shard "3/3": the shard index must be an integer from 0 to 2`},
		{"no slash", "3", 0, nil, "", `--shard "3": want I/N, such as 0/4`},
		{"both", "0/2", 2, nil, "", "--shard and --shards are exclusive: --shards takes the index from JOB_COMPLETION_INDEX"},
	}
	for _, tt := range tests {
		s, _, err := FromEnv(tt.flag, tt.shards, func(k string) string { return tt.env[k] })
		got, msg := "", ""
		if err != nil {
			msg = err.Error()
		} else {
			got = s.String()
		}
		if got != tt.want || msg != tt.err {
			t.Errorf("%s: got %q, %q; want %q, %q", tt.name, got, msg, tt.want, tt.err)
		}
	}
}

func BenchmarkKeep(b *testing.B) {
	ids := genIDs(1024)
	r := rate(b, "0.1")
	for i := 0; b.Loop(); i++ {
		r.Keep(ids[i%len(ids)])
	}
}
