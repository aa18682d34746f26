// app.mjs: one configuration: an instrumentation wrapping the openai client, a weather agent with one tool
// round, exporting traces and logs over OTLP/HTTP. Configured by environment (run.mjs sets it).
import { NodeSDK } from '@opentelemetry/sdk-node';
import { SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { SimpleLogRecordProcessor } from '@opentelemetry/sdk-logs';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { OTLPTraceExporter as ProtoTraces } from '@opentelemetry/exporter-trace-otlp-proto';
import { OTLPLogExporter as ProtoLogs } from '@opentelemetry/exporter-logs-otlp-proto';
import { OTLPTraceExporter as JSONTraces } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPLogExporter as JSONLogs } from '@opentelemetry/exporter-logs-otlp-http';
import { OpenAIInstrumentation } from '@opentelemetry/instrumentation-openai';
import { OpenAIInstrumentation as TraceloopOpenAI } from '@traceloop/instrumentation-openai';
import { trace } from '@opentelemetry/api';
import { createRequire } from 'node:module';
import { logs } from '@opentelemetry/api-logs';

const { PRODUCER, CAPTURE, SCENARIO, OTLP, STANDIN, ENCODING } = process.env;
const capture = CAPTURE === 'on';
const proto = ENCODING === 'protobuf';
const instrumentation = PRODUCER === 'otel'
  ? new OpenAIInstrumentation({ captureMessageContent: capture })
  : new TraceloopOpenAI({ traceContent: capture });
const sdk = new NodeSDK({
  resource: resourceFromAttributes({ 'service.name': 'weather-' + PRODUCER }),
  spanProcessors: [new SimpleSpanProcessor(new (proto ? ProtoTraces : JSONTraces)({ url: OTLP + '/v1/traces' }))],
  logRecordProcessors: [new SimpleLogRecordProcessor({ exporter: new (proto ? ProtoLogs : JSONLogs)({ url: OTLP + "/v1/logs" }) })],
  instrumentations: [instrumentation],
});
sdk.start();
// The instrumentation took its logger when it was made, before the SDK set the global LoggerProvider (this
// SDK release does so for meters only): give it the provider, or its log records go nowhere.
instrumentation.setLoggerProvider(logs.getLoggerProvider());
// Loaded through require, after sdk.start(): the instrumentations patch the CommonJS module as it loads
// (ESM would need the SDK's loader hook).
const require = createRequire(import.meta.url);
const openai = require('openai');
const OpenAI = openai.OpenAI || openai.default || openai;

const client = new OpenAI({ apiKey: 'test', baseURL: STANDIN + '/v1' });
const tools = [{ type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
const getWeather = ({ city }) => ({ city, temp_c: 18 });
const tracer = trace.getTracer('weather-app');

async function chatRound(stream) {
  const messages = [{ role: 'system', content: 'You are a weather bot.' }, { role: 'user', content: 'What is the weather in Paris?' }];
  for (let turn = 0; turn < 3; turn++) {
    const params = { model: 'gpt-4o-mini', messages, tools };
    let msg;
    if (stream) {
      const s = await client.chat.completions.create({ ...params, stream: true, ...(SCENARIO === 'chat-stream-usage' ? { stream_options: { include_usage: true } } : {}) });
      msg = { role: 'assistant', content: '', tool_calls: [] };
      for await (const chunk of s) {
        const d = chunk.choices[0] && chunk.choices[0].delta;
        if (!d) continue;
        if (d.content) msg.content += d.content;
        for (const tc of d.tool_calls || []) {
          const cur = msg.tool_calls[tc.index] || (msg.tool_calls[tc.index] = { id: tc.id, type: 'function', function: { name: '', arguments: '' } });
          if (tc.function && tc.function.name) cur.function.name += tc.function.name;
          if (tc.function && tc.function.arguments) cur.function.arguments += tc.function.arguments;
        }
      }
      if (!msg.tool_calls.length) delete msg.tool_calls;
      if (msg.tool_calls) msg.content = null;
    } else {
      msg = (await client.chat.completions.create(params)).choices[0].message;
    }
    messages.push(msg);
    if (!msg.tool_calls) return msg.content;
    for (const tc of msg.tool_calls) {
      const run = () => JSON.stringify(getWeather(JSON.parse(tc.function.arguments)));
      let content;
      if (SCENARIO === 'chat-toolspan') { // the application records its own tool span, as the GenAI conventions say
        content = tracer.startActiveSpan('execute_tool get_weather', { attributes: { 'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': 'get_weather', 'gen_ai.tool.call.id': tc.id, 'gen_ai.tool.call.arguments': tc.function.arguments } }, (span) => {
          const out = run();
          span.setAttribute('gen_ai.tool.call.result', out);
          span.end();
          return out;
        });
      } else {
        content = run();
      }
      messages.push({ role: 'tool', tool_call_id: tc.id, content });
    }
  }
}

async function responsesRound() {
  const input = [{ role: 'user', content: 'What is the weather in Paris?' }];
  const rtools = [{ type: 'function', name: 'get_weather', parameters: tools[0].function.parameters }];
  for (let turn = 0; turn < 3; turn++) {
    const r = await client.responses.create({ model: 'gpt-4o-mini', instructions: 'You are a weather bot.', input, tools: rtools });
    const calls = r.output.filter((o) => o.type === 'function_call');
    if (!calls.length) return r.output_text;
    for (const c of calls) {
      input.push(c);
      input.push({ type: 'function_call_output', call_id: c.call_id, output: JSON.stringify(getWeather(JSON.parse(c.arguments))) });
    }
  }
}

await tracer.startActiveSpan('handle_request', async (span) => {
  const answer = SCENARIO === 'responses' ? await responsesRound() : await chatRound(SCENARIO.startsWith('chat-stream'));
  span.end();
  console.log(JSON.stringify({ answer }));
});
await sdk.shutdown();
