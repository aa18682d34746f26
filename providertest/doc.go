// Package providertest is a fake of the model APIs the engine calls, for
// tests only: an httptest server that answers OpenAI's /v1/embeddings and
// /v1/chat/completions and Anthropic's /v1/messages with the shapes of the
// real APIs, records every request, and serves canned responses first. The
// tests of provider (the clients) and of assert (the evaluators of layers
// 5–6) share it, as net/http/httptest is shared; nothing outside tests
// imports it.
package providertest
