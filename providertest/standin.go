// standin.go: a seeded stand-in judge on 127.0.0.1 with a known noise model, for the judge's consistency, pairwise and spend goals.

package providertest

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// StandIn is an OpenAI-compatible judge (POST /v1/chat/completions, the
// API's request and response shapes, usage counted honestly) whose verdicts
// follow a known noise model:
//
//   - each item (the text inside the request's <agent_output> tags, or for
//     a pairwise request the pair of <response_a> and <response_b>) has a
//     quality that is a pure function of its text: good with probability
//     Good, scored in [0.75, 1.0], else bad, scored in [0.1, 0.6];
//   - each call independently lands on the wrong side of 0.7 with
//     probability Flip (a good item scored bad, or a bad one good);
//   - for a pairwise request, with probability FirstBias the reply prefers
//     response A whatever the answers are (score 0.9); otherwise it prefers
//     the better answer (0.5 for equals), with noise Flip.
//
// The n-th call with a given request body draws from a PCG seeded with
// (Seed, the body's hash, n): with the same seed the same sequence of calls
// gets the same replies, and another seed is another run of the same model.
type StandIn struct {
	*httptest.Server
	Seed      uint64
	Good      float64 // share of good items; default 0.6
	Flip      float64 // probability of a verdict on the wrong side
	FirstBias float64 // pairwise: probability of preferring response A

	calls      atomic.Int64 // chat completions served
	embeds     atomic.Int64 // texts embedded
	prompt     atomic.Int64 // prompt tokens reported, chat and embeddings
	completion atomic.Int64 // completion tokens reported
	mu         sync.Mutex
	seen       map[[32]byte]uint64 // calls so far per request body
	byModel    map[string][2]int64 // prompt and completion tokens reported, by model
}

// NewStandIn starts a stand-in judge, closed when the test ends.
func NewStandIn(t testing.TB, seed uint64, flip float64) *StandIn {
	s := &StandIn{Seed: seed, Good: 0.6, Flip: flip, seen: map[[32]byte]uint64{}, byModel: map[string][2]int64{}}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// Seed reads a test's seed from the environment variable name (so anyone
// can rerun with another), def when it is unset; it is logged.
func Seed(t testing.TB, name string, def uint64) uint64 {
	seed := def
	if v := os.Getenv(name); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: want an unsigned integer", name, v)
		}
		seed = n
	}
	t.Logf("seed %d (%s=<n> to rerun with another)", seed, name)
	return seed
}

// Calls is the number of chat completions served.
func (s *StandIn) Calls() int64 { return s.calls.Load() }

// Embeds is the number of texts embedded (over every embeddings request).
func (s *StandIn) Embeds() int64 { return s.embeds.Load() }

// Tokens are the prompt and completion tokens reported so far.
func (s *StandIn) Tokens() (prompt, completion int64) { return s.prompt.Load(), s.completion.Load() }

// TokensByModel are the prompt and completion tokens reported so far, by model.
func (s *StandIn) TokensByModel() map[string][2]int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string][2]int64, len(s.byModel))
	for k, v := range s.byModel {
		out[k] = v
	}
	return out
}

func (s *StandIn) count(model string, prompt, completion int) {
	s.mu.Lock()
	t := s.byModel[model]
	t[0] += int64(prompt)
	t[1] += int64(completion)
	s.byModel[model] = t
	s.mu.Unlock()
}

// Quality is an item's latent score, a pure function of its text.
func (s *StandIn) Quality(item string) float64 {
	h := sha256.Sum256([]byte(item))
	u := float64(binary.BigEndian.Uint64(h[:8])>>11) / (1 << 53)
	v := float64(binary.BigEndian.Uint64(h[8:16])>>11) / (1 << 53)
	good := s.Good
	if good == 0 {
		good = 0.6
	}
	if u < good {
		return 0.75 + 0.25*v
	}
	return 0.1 + 0.5*v
}

// Good reports whether an item is good (its latent score is at least 0.7).
func (s *StandIn) IsGood(item string) bool { return s.Quality(item) >= 0.7 }

func (s *StandIn) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if r.URL.Path == "/v1/embeddings" && r.Method == http.MethodPost {
		s.embed(w, raw)
		return
	}
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		io.WriteString(w, `{"error":{"message":"Unknown path","type":"invalid_request_error","param":null,"code":null}}`)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(raw, &req); err != nil || len(req.Messages) == 0 {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"We could not parse the JSON body of your request.","type":"invalid_request_error","param":null,"code":null}}`)
		return
	}
	h := sha256.Sum256(raw)
	s.mu.Lock()
	n := s.seen[h]
	s.seen[h] = n + 1
	s.mu.Unlock()
	rng := rand.New(rand.NewPCG(s.Seed^binary.BigEndian.Uint64(h[:8]), binary.BigEndian.Uint64(h[8:16])+n))

	user := req.Messages[len(req.Messages)-1].Content
	var score float64
	if a, ok := between(user, "<response_a>", "</response_a>"); ok {
		b, _ := between(user, "<response_b>", "</response_b>")
		score = s.pair(rng, a, b)
	} else {
		item, ok := between(user, "<agent_output>", "</agent_output>")
		if !ok {
			item = user
		}
		score = s.single(rng, item)
	}
	content := fmt.Sprintf(`{"score": %.4f, "reason": "Stand-in verdict."}`, score)
	prompt := 0
	for _, m := range req.Messages {
		prompt += len(m.Content)/4 + 4
	}
	completion := len(content) / 4
	s.calls.Add(1)
	s.count(req.Model, prompt, completion)
	s.prompt.Add(int64(prompt))
	s.completion.Add(int64(completion))
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": fmt.Sprintf("chatcmpl-standin-%d", s.calls.Load()), "object": "chat.completion", "created": 1767225600, "model": req.Model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "logprobs": nil,
			"message": map[string]any{"role": "assistant", "content": content, "refusal": nil}}},
		"usage": map[string]any{"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
	})
}

// single is one noisy verdict on an item.
func (s *StandIn) single(rng *rand.Rand, item string) float64 {
	q := s.Quality(item)
	if rng.Float64() < s.Flip { // the wrong side of 0.7
		if q >= 0.7 {
			return 0.1 + 0.5*rng.Float64()
		}
		return 0.75 + 0.25*rng.Float64()
	}
	return q
}

// pair is one noisy preference of A over B.
func (s *StandIn) pair(rng *rand.Rand, a, b string) float64 {
	if rng.Float64() < s.FirstBias {
		return 0.9
	}
	qa, qb := s.Quality(a), s.Quality(b)
	pref := 0.5
	switch {
	case qa > qb:
		pref = 0.9
	case qa < qb:
		pref = 0.1
	}
	if pref != 0.5 && rng.Float64() < s.Flip {
		pref = 1 - pref
	}
	return pref
}

// between is the text between the first open tag and the next close tag,
// trimmed of the new lines the judge's fences add.
func between(s, open, close string) (string, bool) {
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	rest := s[i+len(open):]
	j := strings.Index(rest, close)
	if j < 0 {
		return "", false
	}
	return strings.Trim(rest[:j], "\n"), true
}

// embed answers POST /v1/embeddings: each input's vector is a pure
// function of its text (8 dimensions from its hash), tokens counted as
// for chat.
func (s *StandIn) embed(w http.ResponseWriter, raw []byte) {
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	w.Header().Set("Content-Type", "application/json")
	if err := json.Unmarshal(raw, &req); err != nil || len(req.Input) == 0 {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"error":{"message":"'input' is a required property","type":"invalid_request_error","param":null,"code":null}}`)
		return
	}
	data := make([]any, len(req.Input))
	tokens := 0
	for i, text := range req.Input {
		h := sha256.Sum256([]byte(text))
		vec := make([]float64, 8)
		for k := range vec {
			vec[k] = float64(int(h[k])-128) / 128
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": vec}
		tokens += len(text)/4 + 1
	}
	s.embeds.Add(int64(len(req.Input)))
	s.count(req.Model, tokens, 0)
	s.prompt.Add(int64(tokens))
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]any{"prompt_tokens": tokens, "total_tokens": tokens}})
}
