// env.go: the ATTEST_* environment variables the earlier engine read, under the config file.

package provider

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"attest-engine/clip"
)

// The variables users of the earlier engine set (../shared/sdk-compat.md,
// "What users of the earlier engine set"). The SDKs pass them through from
// the user's shell, so a value the engine cannot use is a warning and that
// feature off, never a failed start. A config file key wins over each.
const (
	envJudgeModel        = "ATTEST_JUDGE_MODEL"        // judge.model
	envJudgeProvider     = "ATTEST_JUDGE_PROVIDER"     // judge.provider
	envEmbeddingProvider = "ATTEST_EMBEDDING_PROVIDER" // embedding.provider
	envCacheDir          = "ATTEST_CACHE_DIR"          // cache_dir
	envJudgeTimeout      = "ATTEST_JUDGE_TIMEOUT_S"    // seconds per judge HTTP attempt; no config key
	envJudgeRPM          = "ATTEST_JUDGE_RPM"          // judge requests per minute, a token bucket
	envJudgeBurst        = "ATTEST_JUDGE_BURST"        // the bucket's size; default 1
	envBudgetMaxCost     = "ATTEST_BUDGET_MAX_COST"    // despite its name, soft failures per batch
)

// maxJudgeRPM bounds ATTEST_JUDGE_RPM and ATTEST_JUDGE_BURST: larger is a typo.
const maxJudgeRPM = 1_000_000

// maxJudgeTimeout bounds ATTEST_JUDGE_TIMEOUT_S: a day is surely a typo.
const maxJudgeTimeout = 24 * time.Hour

// providerEnv is what the ATTEST_* variables asked for.
type providerEnv struct {
	warnings     []string
	embedOff     string // why embeddings are off ("" if they are not)
	judgeOff     string // why the judge is off
	judgeTimeout time.Duration
	cacheDir     string // ATTEST_CACHE_DIR, when the config has no cache_dir
	judgeRPM     float64
	judgeBurst   int
	batchSoft    *int64 // ATTEST_BUDGET_MAX_COST, when usable
}

// readProviderEnv fills the settings the config file left empty from the
// ATTEST_* variables, and says which values it could not use.
func readProviderEnv(s *Settings, getenv func(string) string) providerEnv {
	var env providerEnv
	get := func(name string) string { return strings.TrimSpace(getenv(name)) }
	unusable := func(name, value, want, off string) string {
		msg := fmt.Sprintf("%s %q is not usable: %s; %s", name, clip.String(value, 100), want, off)
		env.warnings = append(env.warnings, msg)
		return msg + "."
	}
	if v := get(envEmbeddingProvider); v != "" && s.Embedding.Provider == "" {
		switch p := strings.ToLower(v); p {
		case "openai", LexicalModel:
			s.Embedding.Provider = p
		default:
			env.embedOff = unusable(envEmbeddingProvider, v, `want "openai" or "lexical"`, "the embedding provider is off") +
				" Set it to openai (any OpenAI-compatible server) or lexical (offline), or unset it."
		}
	}
	if v := get(envJudgeProvider); v != "" && s.Judge.Provider == "" {
		switch p := strings.ToLower(v); p {
		case "openai", "anthropic":
			s.Judge.Provider = p
		default:
			env.judgeOff = unusable(envJudgeProvider, v, `want "openai" or "anthropic"`, "the judge is off") +
				" Set it to openai (any OpenAI-compatible server) or anthropic, or unset it."
		}
	}
	if v := get(envJudgeModel); v != "" && s.Judge.Model == "" {
		s.Judge.Model = v
	}
	if v := get(envCacheDir); v != "" && s.CacheDir == "" {
		env.cacheDir = v // tried by newProviders: a directory that cannot be made is a warning
	}
	env.judgeBurst = 1
	if v := get(envJudgeBurst); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxJudgeRPM {
			unusable(envJudgeBurst, v, "want a whole number of requests from 1 to 1000000", "the burst is 1")
		} else {
			env.judgeBurst = n
		}
	}
	if v := get(envJudgeRPM); v != "" {
		rpm, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(rpm) || rpm <= 0 || rpm > maxJudgeRPM {
			unusable(envJudgeRPM, v, "want a number of requests per minute above 0", "judge requests are not rate limited")
		} else {
			env.judgeRPM = rpm
		}
	}
	if v := get(envBudgetMaxCost); v != "" {
		env.batchSoft = readBudgetMaxCost(v, &env.warnings)
	}
	if v := get(envJudgeTimeout); v != "" {
		secs, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(secs) || secs <= 0 || secs > maxJudgeTimeout.Seconds() {
			unusable(envJudgeTimeout, v, "want a number of seconds above 0 and at most 86400", "judge calls are bounded by --eval-timeout only")
		} else {
			env.judgeTimeout = time.Duration(secs * float64(time.Second))
		}
	}
	return env
}

// readBudgetMaxCost reads ATTEST_BUDGET_MAX_COST as the earlier engine read
// it (../shared/sdk-compat.md): despite its name, an integer, the most soft
// failures one batch may report; a non-integer or negative value turns it
// off with a warning. Its name suggests money, so a warning always says how
// it is read: a spend limit is budget_usd in the --config file.
func readBudgetMaxCost(v string, warnings *[]string) *int64 {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		hint := ""
		if f, ferr := strconv.ParseFloat(v, 64); ferr == nil && f >= 0 {
			hint = " If you meant US dollars, set budget_usd in the --config file: this variable never limited spend."
		}
		*warnings = append(*warnings, fmt.Sprintf("%s %q is not usable: it is read as the earlier engine read it, a whole number of soft failures allowed per batch; the cap is off.%s",
			envBudgetMaxCost, clip.String(v, 100), hint))
		return nil
	}
	*warnings = append(*warnings, fmt.Sprintf("%s=%d is read as the earlier engine read it: at most %d soft failures per batch (the rest are reported hard_fail), not a cost. For a spend limit in US dollars set budget_usd in the --config file.",
		envBudgetMaxCost, n, n))
	return &n
}
