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
)

// maxJudgeTimeout bounds ATTEST_JUDGE_TIMEOUT_S: a day is surely a typo.
const maxJudgeTimeout = 24 * time.Hour

// providerEnv is what the ATTEST_* variables asked for.
type providerEnv struct {
	warnings     []string
	embedOff     string // why embeddings are off ("" if they are not)
	judgeOff     string // why the judge is off
	judgeTimeout time.Duration
	cacheDir     string // ATTEST_CACHE_DIR, when the config has no cache_dir
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
