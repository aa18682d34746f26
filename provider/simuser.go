// simuser.go: the simulated user's turn (generate_user_message): a chat call through cache_dir.

package provider

import (
	"context"
	"encoding/json"
)

// cachedTurn is a simulated user's reply as cache_dir keeps it.
type cachedTurn struct {
	Text string `json:"text"`
	In   int64  `json:"in"`
	Out  int64  `json:"out"`
}

// UserTurn is the judge endpoint's next turn as the simulated user (Chat,
// what "simulated user"), kept in the cache under CacheKey("simulated_user",
// key): a turn recorded earlier is the same text with no network call and,
// as for every cached judge verdict and embedding, zero usage (nothing was
// spent now); a new one is recorded.
func (c *Client) UserTurn(ctx context.Context, key, model, system string, msgs []Message, temperature float64, maxTokens int) (string, Usage, error) {
	key = CacheKey("simulated_user", key)
	var turn cachedTurn
	if raw, ok := c.Cached(key); ok && json.Unmarshal(raw, &turn) == nil {
		return turn.Text, Usage{}, nil
	}
	text, u, err := c.Judge().Chat(ctx, "simulated user", model, system, msgs, temperature, maxTokens)
	if err != nil {
		return "", Usage{}, err
	}
	raw, _ := json.Marshal(cachedTurn{Text: text, In: u.In, Out: u.Out})
	c.Store(key, raw)
	return text, u, nil
}
