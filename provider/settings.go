// settings.go: provider settings (config keys and environment), their resolution into a Client, and prices.

package provider

import (
	"fmt"
	"math"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"attest-engine/clip"
)

// Settings configures the embedding (layer 5) and judge (layer 6) providers. Its
// JSON keys are top-level keys of the --config file; every key is optional
// and the environment alone is enough (the SDKs start the engine with no
// config file, ../shared/sdk-compat.md):
//
//	embedding.provider   "openai" (any OpenAI-compatible server) or "lexical" (offline, computed by the caller).
//	                     Default: "openai" when an OpenAI key or base URL is set, else none.
//	embedding.base_url   OpenAI-compatible base URL, with or without "/v1". Default: $OPENAI_BASE_URL, else https://api.openai.com.
//	embedding.model      default embedding model. Default: text-embedding-3-small ("lexical" with provider lexical).
//	embedding.api_key_env name of the env var holding the key. Default: OPENAI_API_KEY, then ATTEST_OPENAI_API_KEY.
//	judge.provider       "openai" or "anthropic". Default: openai when an OpenAI key or base URL is set,
//	                     else anthropic when an Anthropic key or base URL is set, else none.
//	judge.base_url       Default: $OPENAI_BASE_URL / $ANTHROPIC_BASE_URL, else the provider's public API.
//	judge.model          default judge model. Default: gpt-4.1-mini (openai), claude-haiku-4-5 (anthropic).
//	judge.api_key_env    Default: OPENAI_API_KEY then ATTEST_OPENAI_API_KEY (openai), ANTHROPIC_API_KEY (anthropic).
//	prices               model → {"input": USD, "output": USD} per million tokens; fills a result's cost.
//	                     Merged over built-in list prices (builtinPrices, prices.go); a model with no price costs 0.
//	cache_dir            directory that keeps judge and embedding results across runs (optional).
//	cache_size           entries of the in-memory result cache. Default 4096.
//	cache_dir_max_bytes  size bound of cache_dir; the oldest files go first. Default 256 MiB.
//
// The earlier engine's ATTEST_* variables fill what the config leaves empty
// (env.go): ATTEST_JUDGE_PROVIDER, ATTEST_JUDGE_MODEL,
// ATTEST_EMBEDDING_PROVIDER, ATTEST_CACHE_DIR, and ATTEST_JUDGE_TIMEOUT_S.
//
// A provider is usable when it has an API key, or when its base URL was set
// explicitly (config or *_BASE_URL): a local server (Ollama, vLLM,
// llama.cpp, LM Studio) or a gateway that may need no key. With no key the
// Authorization header is not sent.
type Settings struct {
	Embedding        Config           `json:"embedding"`
	Judge            Config           `json:"judge"`
	Prices           map[string]Price `json:"prices"`
	CacheDir         string           `json:"cache_dir"`
	CacheSize        int              `json:"cache_size"`
	CacheDirMaxBytes int64            `json:"cache_dir_max_bytes"`
	// BudgetUSD is the run's hard spend limit (config "budget_usd"; 0: none):
	// a paid call starts only when its largest possible cost fits what is
	// left (budget.go), so spend never passes it.
	BudgetUSD float64 `json:"budget_usd"`
	// Offline makes no network call at all (config "offline": true, or the
	// --offline flag): a result not in the cache is an *Error with Offline set.
	Offline bool `json:"offline"`

	// Getenv reads the environment; nil means os.Getenv. Tests inject one.
	Getenv func(string) string `json:"-"`
	// HTTPClient sends provider requests; nil means a shared default.
	HTTPClient *http.Client `json:"-"`
	// RetryBase is the first backoff delay; zero means 500ms.
	RetryBase time.Duration `json:"-"`
}

// Config is the "embedding" or "judge" object of the config file.
type Config struct {
	Provider  string `json:"provider"`
	BaseURL   string `json:"base_url"`
	Model     string `json:"model"`
	APIKeyEnv string `json:"api_key_env"`
}

// Defaults of the providers.
const (
	openAIDefaultBase      = "https://api.openai.com"
	anthropicDefaultBase   = "https://api.anthropic.com"
	defaultEmbeddingModel  = "text-embedding-3-small"
	defaultOpenAIJudge     = "gpt-4.1-mini"
	defaultAnthropicJudge  = "claude-haiku-4-5"
	LexicalModel           = "lexical"
	defaultCacheEntries    = 4096
	defaultCacheDirMaxSize = 256 << 20
)

// Usage is the token count a provider reported for one call.
type Usage struct{ In, Out int64 }

// Endpoint is a resolved provider: where it is, how to authenticate.
type Endpoint struct {
	kind         string // "openai" or "anthropic"
	what         string // "embedding" or "judge", for messages
	base         string // scheme://host[/prefix], without a trailing "/" or "/v1"
	key          string // never quoted anywhere
	keyEnv       string // the env var the key comes (or would come) from
	explicitBase bool
	broken       string        // why it cannot be used (a bad *_BASE_URL); "" if fine
	envWarning   string        // the start-up warning for a bad *_BASE_URL variable; "" if none
	model        string        // default model
	timeout      time.Duration // per HTTP attempt (ATTEST_JUDGE_TIMEOUT_S); 0: the batch deadline only
	http         *httpDoer
	spend        *budget // the run's budget_usd; never nil
	limiter      *bucket // ATTEST_JUDGE_RPM for the judge; nil: no limit
}

func (ep *Endpoint) Usable() bool {
	return ep != nil && ep.broken == "" && (ep.key != "" || ep.explicitBase)
}

// Client is the engine's resolved layer 5–6 configuration: the embedding
// and judge endpoints, prices, and the result cache. It is safe for
// concurrent use.
type Client struct {
	embedder     *Endpoint // OpenAI-compatible embeddings; never nil, Usable() or not
	embedDefault string    // default embedding model; "" when none is usable
	embedWhy     string    // what to configure when embedDefault is ""
	judge        *Endpoint // never nil; unusable: llm_judge is an ASSERTION_ERROR
	judgeWhy     string
	prices       map[string]Price
	configPriced map[string]bool // models whose price the config's prices key set
	cache        *resultCache
	inflight     flights  // embeddings being computed, by cache key
	warnings     []string // settings from the environment that could not be used
	spend        *budget  // budget_usd, shared by the endpoints
	batchSoft    *int64   // ATTEST_BUDGET_MAX_COST, the earlier engine's per-batch soft-failure cap
}

// New resolves the settings against the environment. A bad config value is
// an error; a provider that is merely unusable (no key) is not.
func New(s Settings) (*Client, error) {
	getenv := s.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	client := sync.OnceValue(newHTTPClient)
	if s.HTTPClient != nil {
		client = func() *http.Client { return s.HTTPClient }
	}
	doer := &httpDoer{client: client, retryBase: s.RetryBase, offline: s.Offline}
	p := &Client{prices: map[string]Price{}, configPriced: map[string]bool{}}
	env := readProviderEnv(&s, getenv)
	p.warnings, p.batchSoft = env.warnings, env.batchSoft
	if err := validBudget(s.BudgetUSD); err != nil {
		return nil, err
	}
	for m, pr := range builtinPrices {
		p.prices[m] = pr
	}
	for m, pr := range s.Prices {
		if !(pr.Input >= 0 && pr.Output >= 0) || math.IsInf(pr.Input, 0) || math.IsInf(pr.Output, 0) {
			return nil, fmt.Errorf("config prices[%q]: input and output must be non-negative USD per million tokens", m)
		}
		p.prices[m] = pr
		p.configPriced[m] = true
	}

	// Layer 5.
	switch s.Embedding.Provider {
	case "", "openai", LexicalModel:
	default:
		return nil, fmt.Errorf("config embedding.provider %q: want \"openai\" or \"lexical\"", s.Embedding.Provider)
	}
	ep, err := resolveEndpoint("openai", "embedding", s.Embedding, getenv, doer)
	if err != nil {
		return nil, err
	}
	p.warnEnv(ep)
	ep.model = orDefault(s.Embedding.Model, defaultEmbeddingModel)
	p.embedder = ep
	p.spend = &budget{limit: s.BudgetUSD, prices: p.prices}
	ep.spend = p.spend
	switch {
	case s.Embedding.Provider == LexicalModel || (s.Embedding.Provider == "" && s.Embedding.Model == LexicalModel):
		p.embedDefault = LexicalModel
	case ep.Usable():
		p.embedDefault = ep.model
	default:
		p.embedWhy = ep.whyUnusable("embedding") + " Or use the offline lexical model: \"model\": \"lexical\" in the assertion, or {\"embedding\": {\"provider\": \"lexical\"}} in the --config file."
	}
	if env.embedOff != "" {
		p.embedDefault, p.embedWhy, ep.broken = "", env.embedOff, env.embedOff
	}

	// Layer 6.
	var judge *Endpoint
	switch s.Judge.Provider {
	case "openai", "anthropic":
		if judge, err = resolveEndpoint(s.Judge.Provider, "judge", s.Judge, getenv, doer); err != nil {
			return nil, err
		}
		p.warnEnv(judge)
	case "":
		// The first usable of OpenAI, then Anthropic; else OpenAI, to say what to set.
		oa, err := resolveEndpoint("openai", "judge", s.Judge, getenv, doer)
		if err != nil {
			return nil, err
		}
		an, err := resolveEndpoint("anthropic", "judge", s.Judge, getenv, doer)
		if err != nil {
			return nil, err
		}
		p.warnEnv(oa, an)
		judge = oa
		if !oa.Usable() && an.Usable() {
			judge = an
		}
	default:
		return nil, fmt.Errorf("config judge.provider %q: want \"openai\" or \"anthropic\"", s.Judge.Provider)
	}
	judge.model = s.Judge.Model
	if judge.model == "" {
		judge.model = map[string]string{"openai": defaultOpenAIJudge, "anthropic": defaultAnthropicJudge}[judge.kind]
	}
	p.judge = judge
	if !judge.Usable() {
		p.judgeWhy = judge.whyUnusable("judge")
		if s.Judge.Provider == "" {
			p.judgeWhy = "Set OPENAI_API_KEY (or ATTEST_OPENAI_API_KEY) or ANTHROPIC_API_KEY, or OPENAI_BASE_URL for a local OpenAI-compatible server; or choose judge.provider in the --config file."
		}
	}
	if env.judgeOff != "" {
		p.judgeWhy, judge.broken = env.judgeOff, env.judgeOff
	}
	judge.timeout = env.judgeTimeout
	judge.spend = p.spend
	if env.judgeRPM > 0 {
		judge.limiter = newBucket(env.judgeRPM, env.judgeBurst)
	}

	size := s.CacheSize
	if size < 0 {
		return nil, fmt.Errorf("config cache_size %d: must not be negative", size)
	}
	if size == 0 {
		size = defaultCacheEntries
	}
	maxDir := s.CacheDirMaxBytes
	if maxDir <= 0 {
		maxDir = defaultCacheDirMaxSize
	}
	dir := s.CacheDir
	if dir == "" {
		dir = env.cacheDir
	}
	p.cache, err = newResultCache(size, dir, maxDir)
	if err != nil && s.CacheDir == "" {
		p.warnings = append(p.warnings, fmt.Sprintf("%s %q is not usable (%v): results are cached in memory only", envCacheDir, clip.String(dir, 200), err))
		p.cache, err = newResultCache(size, "", maxDir)
	}
	if err != nil {
		return nil, fmt.Errorf("config cache_dir: %v", err)
	}
	return p, nil
}

// Usable reports whether layers 5 and 6 can both run: the capability
// layers_5_6 (spec §2.1) is advertised only then.
func (p *Client) Usable() bool {
	return p != nil && p.embedDefault != "" && p.judge.Usable()
}

// resolveEndpoint reads a provider's key and base URL from the config
// section and the ecosystem's environment variables. A bad base_url in the
// config file is a startup error; a bad *_BASE_URL variable only makes the
// provider unusable, with an assertion error that says why (SDKs never read
// the engine's stderr).
func resolveEndpoint(kind, what string, c Config, getenv func(string) string, doer *httpDoer) (*Endpoint, error) {
	ep := &Endpoint{kind: kind, what: what, http: doer}
	keyVars, baseVar, defBase := []string{"OPENAI_API_KEY", "ATTEST_OPENAI_API_KEY"}, "OPENAI_BASE_URL", openAIDefaultBase
	if kind == "anthropic" {
		keyVars, baseVar, defBase = []string{"ANTHROPIC_API_KEY"}, "ANTHROPIC_BASE_URL", anthropicDefaultBase
	}
	if c.APIKeyEnv != "" {
		keyVars = []string{c.APIKeyEnv}
	}
	ep.keyEnv = keyVars[0]
	for _, name := range keyVars {
		if v := strings.TrimSpace(getenv(name)); v != "" {
			ep.key, ep.keyEnv = v, name
			break
		}
	}
	switch {
	case c.BaseURL != "":
		b, err := normalizeBase(c.BaseURL)
		if err != nil {
			return nil, fmt.Errorf("config %s.base_url: %v", what, err)
		}
		ep.base, ep.explicitBase = b, true
	case getenv(baseVar) != "":
		b, err := normalizeBase(getenv(baseVar))
		if err != nil {
			ep.broken = fmt.Sprintf("%s is not usable: %v.", baseVar, err)
			ep.envWarning = fmt.Sprintf("%s is not usable (%v): the %s provider it names is off", baseVar, err, kind)
		}
		ep.base, ep.explicitBase = b, true
	default:
		ep.base = defBase
	}
	return ep, nil
}

// warnEnv adds the warning of each endpoint whose *_BASE_URL variable could
// not be used, once per variable: the start-up log says so (the SDKs pass
// the user's shell through), and the assertions that need the provider get
// a 1002 that names it.
func (p *Client) warnEnv(eps ...*Endpoint) {
	for _, ep := range eps {
		if ep.envWarning != "" && !slices.Contains(p.warnings, ep.envWarning) {
			p.warnings = append(p.warnings, ep.envWarning)
		}
	}
}

// Why is what to configure to make an unusable endpoint usable: the detail
// of the ASSERTION_ERROR that names it.
func (ep *Endpoint) Why() string {
	return ep.whyUnusable(ep.what)
}

// whyUnusable is the detail of the ASSERTION_ERROR for an unusable provider.
func (ep *Endpoint) whyUnusable(what string) string {
	if ep.broken != "" {
		return ep.broken + " Set it to an http(s) URL such as http://localhost:11434/v1."
	}
	if ep.keyEnv == "OPENAI_API_KEY" {
		return fmt.Sprintf("Set OPENAI_API_KEY (or ATTEST_OPENAI_API_KEY) for the %s provider, or OPENAI_BASE_URL for a local OpenAI-compatible server (Ollama, vLLM, llama.cpp).", what)
	}
	return fmt.Sprintf("Set the environment variable %s to the %s provider's API key, or set %s.base_url in the --config file for a server that needs no key.", ep.keyEnv, what, what)
}

// normalizeBase accepts a base URL with or without a trailing "/v1".
func normalizeBase(raw string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an http(s) URL", raw)
	}
	if u.User != nil {
		return "", fmt.Errorf("base URL must not carry credentials; put the key in the environment variable named by api_key_env")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", fmt.Errorf("%q: a base URL takes no query or fragment", raw)
	}
	path := strings.TrimRight(u.Path, "/")
	path = strings.TrimSuffix(path, "/v1")
	return u.Scheme + "://" + u.Host + path, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}
