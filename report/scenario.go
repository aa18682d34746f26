// scenario.go: a scenario's summary (capability simulation) as the reports show it: n, passes, pass^k, Wilson 95%.

package report

import "attest-engine/simulate"

// passK is one pass^k of a scenario summary.
type passK struct {
	K int
	P float64
}

// scenarioPassK lists the pass^k a report shows: k = 1..8, then pass^n
// alone when n is larger (pass^k for every k of 10,000 runs is no summary).
func scenarioPassK(s *simulate.Summary) []passK {
	var out []passK
	for k, p := range s.PassHatK {
		if k == 8 {
			out = append(out, passK{s.N, s.PassHatK[s.N-1]})
			break
		}
		out = append(out, passK{k + 1, p})
	}
	return out
}
