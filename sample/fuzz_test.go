package sample

import "testing"

// FuzzParseRate: any text (a --rate flag or a suite's per-agent rate) is a
// rate whose threshold is within [0, 2⁵⁶], or an error; never a panic.
func FuzzParseRate(f *testing.F) {
	for _, s := range []string{"0", "1", "0.5", " 0.25 ", "1e-3", "1/2", "-0", "1.0000000001", "1e-100000", "NaN", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRate(s)
		if err != nil {
			return
		}
		if r.Threshold() > maxR {
			t.Fatalf("ParseRate(%q): threshold %d beyond 2^56", s, r.Threshold())
		}
		if r.String() != s {
			t.Fatalf("ParseRate(%q).String() = %q", s, r.String())
		}
	})
}

// FuzzFromEnv: any flag and environment (--shard, JOB_COMPLETION_INDEX,
// Slurm's array variables) give a shard with 0 ≤ I < N ≤ MaxShards, or an
// error; never a panic.
func FuzzFromEnv(f *testing.F) {
	f.Add("1/4", 0, "", "", "", "")
	f.Add("", 4, "3", "", "", "")
	f.Add("", 0, "", "7", "8", "1")
	f.Add("", 0, "", "-9223372036854775808", "4", "1")
	f.Add(" 0 / 1 ", 0, "", "", "", "")
	f.Fuzz(func(t *testing.T, flag string, shards int, job, id, count, min string) {
		env := map[string]string{"JOB_COMPLETION_INDEX": job, "SLURM_ARRAY_TASK_ID": id,
			"SLURM_ARRAY_TASK_COUNT": count, "SLURM_ARRAY_TASK_MIN": min}
		s, _, err := FromEnv(flag, shards, func(k string) string { return env[k] })
		if err != nil {
			return
		}
		if s.N < 1 || s.N > MaxShards || s.I < 0 || s.I >= s.N {
			t.Fatalf("FromEnv(%q, %d, %q) = %d/%d", flag, shards, env, s.I, s.N)
		}
	})
}
