// published_test.go: Fleiss's own 1971 example, reference values of R's irr package and a SAS example, and ragged Fleiss input.

package agreement

import (
	"math"
	"testing"
)

// diagnoses is the example of Fleiss (1971, Table 1): 30 patients, each
// given one of five diagnoses by 6 of the psychiatrists (1 depression,
// 2 personality disorder, 3 schizophrenia, 4 neurosis, 5 other), as the
// `diagnoses` data set of R's irr package holds it, one row per patient.
var diagnoses = [30][6]int{
	{4, 4, 4, 4, 4, 4}, {2, 2, 2, 5, 5, 5}, {2, 3, 3, 3, 3, 5}, {5, 5, 5, 5, 5, 5}, {2, 2, 2, 4, 4, 4},
	{1, 1, 3, 3, 3, 3}, {3, 3, 3, 3, 5, 5}, {1, 1, 3, 3, 3, 4}, {1, 1, 4, 4, 4, 4}, {5, 5, 5, 5, 5, 5},
	{1, 4, 4, 4, 4, 4}, {1, 2, 4, 4, 4, 4}, {2, 2, 2, 3, 3, 3}, {1, 4, 4, 4, 4, 4}, {2, 2, 4, 4, 4, 5},
	{3, 3, 3, 3, 3, 5}, {1, 1, 1, 4, 5, 5}, {1, 1, 1, 1, 1, 2}, {2, 2, 4, 4, 4, 4}, {1, 3, 3, 5, 5, 5},
	{5, 5, 5, 5, 5, 5}, {2, 4, 4, 4, 4, 4}, {2, 2, 4, 5, 5, 5}, {1, 1, 4, 4, 4, 4}, {1, 4, 4, 4, 4, 5},
	{2, 2, 2, 2, 2, 4}, {1, 1, 1, 1, 5, 5}, {2, 2, 4, 4, 4, 4}, {1, 3, 3, 3, 3, 3}, {5, 5, 5, 5, 5, 5},
}

// TestPublishedFleiss1971: Fleiss' κ of Fleiss's own example is .430 as
// the paper gives it, 0.4302445 as irr's kappam.fleiss prints it, with the
// category totals 26, 26, 30, 55, 43; and Krippendorff's nominal α of the
// same ratings (no value missing) agrees with the brute force.
func TestPublishedFleiss1971(t *testing.T) {
	counts := make([][]int, len(diagnoses))
	units := make([][]float64, len(diagnoses))
	totals := make([]int, 5)
	for s, row := range diagnoses {
		counts[s] = make([]int, 5)
		for _, d := range row {
			counts[s][d-1]++
			totals[d-1]++
			units[s] = append(units[s], float64(d))
		}
	}
	if want := []int{26, 26, 30, 55, 43}; !equalInts(totals, want) {
		t.Fatalf("category totals %v, want %v: the table is mistyped", totals, want)
	}
	got := FleissKappa(counts)
	if math.Abs(got-0.4302445) > 5e-8 || math.Round(got*1000)/1000 != 0.430 {
		t.Errorf("Fleiss κ %v, published .430 (irr: 0.4302445)", got)
	}
	if r := fleissRat(counts); !near(got, r) {
		t.Errorf("Fleiss κ %v, brute force %v", got, r)
	}
	if a, r := Alpha(units, Nominal), alphaRat(units, Nominal); !near(a, r) {
		t.Errorf("α %v, brute force %v", a, r)
	}
}

// anxiety2, anxiety3 are raters 2 and 3 of the `anxiety` data set of R's
// irr package (20 subjects, scores 1–6). Their values are 1, 2, 3, 4 and
// 6; irr's kappa2 takes the levels that occur, in order, as the ordinal
// categories, so 6 is the fifth level.
var (
	anxiety2 = []int{3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4}
	anxiety3 = []int{2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2}
)

// TestPublishedWeightedKappa: plain and quadratic-weighted κ against the
// values irr's kappa2 prints for raters 2 and 3 of its anxiety data
// (unweighted −0.006289308, "squared" 0.2520325), and plain κ against
// the SAS documentation's 3 × 3 example (0.4842).
func TestPublishedWeightedKappa(t *testing.T) {
	level := map[int]int{1: 0, 2: 1, 3: 2, 4: 3, 6: 4}
	var a, b []int
	for i := range anxiety2 {
		a, b = append(a, level[anxiety2[i]]), append(b, level[anxiety3[i]])
	}
	m := Confusion(a, b, 5)
	if got := CohenKappa(m); math.Abs(got-(-0.006289308)) > 5e-10 {
		t.Errorf("κ %v, irr −0.006289308", got)
	}
	if got := WeightedKappa(m); math.Abs(got-0.2520325) > 5e-8 {
		t.Errorf("quadratic κ %v, irr 0.2520325", got)
	}
	if got := CohenKappa([][]int{{0, 4, 1}, {0, 8, 0}, {0, 1, 5}}); math.Round(got*1e4)/1e4 != 0.4842 {
		t.Errorf("κ %v, SAS 0.4842", got)
	}
}

// TestFleissRagged: a table whose rows differ in length, or hold a
// negative count, has no Fleiss' κ: 0, as documented, never a panic.
func TestFleissRagged(t *testing.T) {
	for _, counts := range [][][]int{
		{{1, 1}, {1, 1, 0}},
		{{1, 1, 0}, {1, 1}},
		{{2, 0}, {3, -1}},
	} {
		func() {
			defer func() {
				if p := recover(); p != nil {
					t.Errorf("FleissKappa(%v) panicked: %v", counts, p)
				}
			}()
			if got := FleissKappa(counts); got != 0 {
				t.Errorf("FleissKappa(%v) = %v, want 0", counts, got)
			}
		}()
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
