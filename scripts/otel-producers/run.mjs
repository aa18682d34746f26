// run.mjs: the one command (README.md): every configuration of real GenAI instrumentations wrapping the
// openai client against the local stand-in, exporting to `watch --listen`; checks each trace's verdicts and,
// with --write, commits the OTLP bodies it captured as fixtures under testdata/ingest/real/.
import { spawn, execFileSync } from 'node:child_process';
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStandIn } from './standin.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const write = process.argv.includes('--write');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'otel-producers-'));
const engine = path.join(tmp, 'attest-engine');
execFileSync('go', ['build', '-o', engine, '.'], { cwd: root, stdio: 'inherit' });

const configs = [];
for (const producer of ['otel', 'traceloop']) {
  for (const capture of ['on', 'off']) {
    for (const scenario of ['chat', 'chat-stream', 'chat-stream-usage', 'chat-toolspan', 'responses']) {
      configs.push({ producer, capture, scenario, encoding: producer === 'otel' ? 'protobuf' : 'json' });
    }
  }
}

// watch --listen, its address read from its log, its result lines kept.
function startWatch() {
  return new Promise((resolve, reject) => {
    const p = spawn(engine, ['watch', '--suite', path.join(here, 'suite.json'), '--listen', '127.0.0.1:0', '--grace', '1s'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    p.stdout.on('data', (d) => (out += d));
    p.stderr.on('data', (d) => {
      err += d;
      const m = /"msg":"listening for OTLP\/HTTP","address":"([^"]+)"/.exec(err);
      if (m) resolve({ p, addr: m[1], results: () => out, log: () => err });
    });
    p.on('exit', (code) => reject(new Error('watch exited ' + code + ': ' + err)));
  });
}

// a recording proxy in front of watch: every body the exporters send, kept in order.
function startProxy(target) {
  const bodies = [];
  return new Promise((resolve) => {
    const srv = http.createServer((req, res) => {
      const chunks = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        bodies.push({ path: req.url, type: req.headers['content-type'], body });
        const fwd = http.request({ host: target.split(':')[0], port: target.split(':')[1], path: req.url, method: 'POST',
          headers: { 'content-type': req.headers['content-type'], 'content-length': body.length } }, (r) => {
          const back = [];
          r.on('data', (c) => back.push(c));
          r.on('end', () => { res.writeHead(r.statusCode, { 'content-type': r.headers['content-type'] || 'text/plain' }); res.end(Buffer.concat(back)); });
        });
        fwd.end(body);
      });
    });
    srv.listen(0, '127.0.0.1', () => resolve({ srv, bodies, url: 'http://127.0.0.1:' + srv.address().port }));
  });
}

function runApp(env) {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [path.join(here, 'app.mjs')], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    p.stdout.on('data', (d) => (out += d));
    p.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error('app exited ' + code))));
  });
}

// expected verdicts of a configuration, by assertion. With capture off the official instrumentation still
// names the tool calls (no arguments, no results); Traceloop's sends no messages at all, so there are no tool
// calls to check (skipped) and only the two model calls as steps. Neither sends token usage for a stream
// that asks for none; Traceloop's sends none for streams at all (its stream wrapper does not read the usage
// chunk): the token check is skipped, saying so. With the application's own tool span (chat-toolspan) the
// span is the step, never doubled by one derived from the messages, and it carries arguments and result.
function expected(c) {
  const on = c.capture === 'on';
  const traceloopOff = c.producer === 'traceloop' && !on && c.scenario !== 'chat-toolspan';
  const toolspan = c.scenario === 'chat-toolspan';
  const streamed = c.scenario.startsWith('chat-stream');
  return {
    answer: on ? 'pass' : 'skipped',
    'tool-called': traceloopOff ? 'skipped' : 'pass',
    'steps-in-order': traceloopOff ? 'hard_fail' : 'pass',
    'tool-arguments-and-result': on || toolspan ? 'pass' : 'hard_fail',
    model: 'pass',
    tokens: c.scenario === 'chat-stream' || (c.producer === 'traceloop' && streamed) ? 'skipped' : 'pass',
  };
}

const standin = await startStandIn();
const standinURL = 'http://127.0.0.1:' + standin.address().port;
let failures = 0;
const rows = [];
for (const c of configs) {
  const name = `${c.producer}_${c.scenario}_capture_${c.capture}`;
  const w = await startWatch();
  const proxy = await startProxy(w.addr);
  await runApp({ PRODUCER: c.producer, CAPTURE: c.capture, SCENARIO: c.scenario, ENCODING: c.encoding, OTLP: proxy.url, STANDIN: standinURL });
  w.p.kill('SIGTERM');
  await new Promise((r) => w.p.on('exit', r));
  proxy.srv.close();
  const lines = w.results().trim().split('\n').filter(Boolean).map((l) => JSON.parse(l));
  const traces = new Set(lines.map((l) => l.trace_id));
  const want = expected(c);
  const bad = [];
  if (traces.size !== 1) bad.push(`${traces.size} traces`);
  for (const l of lines) {
    if (want[l.assertion] !== l.status) bad.push(`${l.assertion}: ${l.status} (want ${want[l.assertion]}): ${l.explanation}`);
    if (c.capture === 'on' && /content not captured/.test(l.explanation)) bad.push(`${l.assertion} says content not captured`);
    if (c.capture === 'off' && l.assertion === 'answer' && !/content not captured/.test(l.explanation)) bad.push('capture off not reported');
  }
  if (/a request for a path this engine does not serve/.test(w.log())) bad.push('an exporter posted to a path watch does not serve');
  failures += bad.length ? 1 : 0;
  rows.push(`${bad.length ? 'FAIL' : 'ok  '} ${name}: ${lines.length} results, ${proxy.bodies.length} bodies${bad.length ? '\n       ' + bad.join('\n       ') : ''}`);
  if (write) {
    const dir = path.join(root, 'testdata/ingest/real', name);
    fs.rmSync(dir, { recursive: true, force: true });
    fs.mkdirSync(dir, { recursive: true });
    proxy.bodies.forEach((b, i) => {
      const kind = b.path.endsWith('/v1/logs') ? 'logs' : 'traces';
      const ext = /protobuf/.test(b.type) ? 'pb' : 'json';
      fs.writeFileSync(path.join(dir, `${String(i + 1).padStart(3, '0')}.${kind}.${ext}`), b.body);
    });
  }
}
standin.close();
fs.rmSync(tmp, { recursive: true, force: true });
console.log(rows.join('\n'));
console.log(`${configs.length - failures} of ${configs.length} configurations as expected`);
process.exit(failures ? 1 : 0);
