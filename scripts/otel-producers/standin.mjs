// standin.mjs: a local OpenAI-compatible stand-in on 127.0.0.1: chat completions (with a tool round,
// streaming or not, usage optional) and the Responses API (with a tool round). Deterministic answers.
import http from 'node:http';

const ANSWER = 'It is 18 degrees in Paris.';
const ARGS = JSON.stringify({ city: 'Paris' });

function usage(n) {
  return { prompt_tokens: 40 + n, completion_tokens: 10 + n, total_tokens: 50 + 2 * n };
}

function chat(req, res, body) {
  const answered = (body.messages || []).some((m) => m.role === 'tool');
  const n = (body.messages || []).length;
  const base = { id: 'chatcmpl-' + n, object: 'chat.completion', created: 1764000000, model: body.model };
  const message = answered
    ? { role: 'assistant', content: ANSWER }
    : { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: ARGS } }] };
  const finish = answered ? 'stop' : 'tool_calls';
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ...base, choices: [{ index: 0, message, finish_reason: finish }], usage: usage(n) }));
    return;
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const chunk = (delta, finish_reason, extra) =>
    res.write('data: ' + JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason }], ...extra }) + '\n\n');
  if (answered) {
    chunk({ role: 'assistant', content: 'It is 18 ' }, null);
    chunk({ content: 'degrees in Paris.' }, null);
  } else {
    chunk({ role: 'assistant', tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, null);
    chunk({ tool_calls: [{ index: 0, function: { arguments: ARGS } }] }, null);
  }
  chunk({}, finish);
  if (body.stream_options && body.stream_options.include_usage) {
    res.write('data: ' + JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage: usage(n) }) + '\n\n');
  }
  res.end('data: [DONE]\n\n');
}

function responses(req, res, body) {
  const input = Array.isArray(body.input) ? body.input : [{ role: 'user', content: body.input }];
  const answered = input.some((i) => i.type === 'function_call_output');
  const output = answered
    ? [{ type: 'message', id: 'msg_2', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: ANSWER, annotations: [] }] }]
    : [{ type: 'function_call', id: 'fc_1', call_id: 'call_r1', name: 'get_weather', arguments: ARGS, status: 'completed' }];
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({
    id: 'resp_' + input.length, object: 'response', created_at: 1764000000, status: 'completed', model: body.model,
    output, usage: { input_tokens: 40 + input.length, output_tokens: 10, total_tokens: 50 + input.length,
      input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } },
  }));
}

export function startStandIn() {
  return new Promise((resolve) => {
    const srv = http.createServer((req, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => {
        const body = data ? JSON.parse(data) : {};
        if (req.url.endsWith('/chat/completions')) return chat(req, res, body);
        if (req.url.endsWith('/responses')) return responses(req, res, body);
        res.writeHead(404);
        res.end();
      });
    });
    srv.listen(0, '127.0.0.1', () => resolve(srv));
  });
}
