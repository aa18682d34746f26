package testseed

import "testing"

func TestUint64(t *testing.T) {
	for _, tc := range []struct {
		env  string
		want uint64
	}{
		{"", 28},
		{"7", 7},
		{"18446744073709551615", 1<<64 - 1},
	} {
		t.Setenv("TESTSEED_SEED", tc.env)
		if got := Uint64(t, "TESTSEED_SEED", 28); got != tc.want {
			t.Errorf("TESTSEED_SEED=%q: seed %d, want %d", tc.env, got, tc.want)
		}
	}
}

// fatalTB records a Fatalf instead of ending the test.
type fatalTB struct {
	testing.TB
	failed bool
}

func (f *fatalTB) Helper()               {}
func (f *fatalTB) Logf(string, ...any)   {}
func (f *fatalTB) Fatalf(string, ...any) { f.failed = true }

func TestUint64Refuses(t *testing.T) {
	for _, v := range []string{"x", "-1", "1.5", "18446744073709551616"} {
		t.Setenv("TESTSEED_SEED", v)
		f := &fatalTB{TB: t}
		Uint64(f, "TESTSEED_SEED", 1)
		if !f.failed {
			t.Errorf("TESTSEED_SEED=%q taken", v)
		}
	}
}
