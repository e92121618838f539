// Test harness for the ringcast integration suite (docs/protocol.md is the spec).
//
// startServer(args) spawns the server binary ($RINGCAST_BIN, default build/server/ringcast) on
// `--listen 127.0.0.1:0 --admin-token <random>` plus short timeouts, reads the port from the
// "listening on HOST:PORT" log line, waits for /healthz, and gives back a handle with clients:
//   srv.ws(params)        WebSocket client (npm `ws`) collecting JSON messages, with next()/none()
//   srv.sse(params)       SSE client over raw HTTP, parsing id/event/data/retry lines and comments
//   srv.poll(params)      one long-poll request (node:http, so the socket can be inspected)
//   srv.admin(...)        admin API with the bearer token; publish(), kick(), stats()
//   srv.stop()            closes the clients, sends SIGTERM, asserts exit status 0 and a log
//                         without a sanitizer report
// startServer(args, { tls: true }) makes a self-signed certificate (openssl), serves with
// --tls-cert/--tls-key, and every client above then speaks HTTPS/WSS, trusting that certificate.
// Every wait has a timeout, so every test stops by itself.

import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import assert from 'node:assert/strict';
import WebSocket from 'ws';
import { assertCleanExit } from '../common/server_exit.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
export const BIN = process.env.RINGCAST_BIN || path.resolve(here, '../../build/server/ringcast');

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Flags every test server gets unless the test gives its own value: short, explicit timeouts
// (never the defaults), a fine tick so that timeouts fire close to their deadline.
const BASE_FLAGS = {
  '--tick-ms': '20',
  '--drain': '300ms',
  '--heartbeat': '30',
  '--idle-timeout': '30',
  '--session-ttl': '60',
  '--poll-timeout': '20',
  '--handshake-timeout': '10',
};

const live = new Set(); // child processes not yet reaped: killed if the test process dies
process.on('exit', () => {
  for (const c of live) {
    try { c.kill('SIGKILL'); } catch { /* already gone */ }
  }
});

// Builds a query string; characters of the identifier charset (and ',') stay as they are so that
// `channels=a,b` and `user:x` are sent literally, everything else is percent-encoded.
export function query(params = {}) {
  const parts = [];
  for (const [k, v] of Object.entries(params)) {
    if (v === undefined || v === null) continue;
    const val = Array.isArray(v) ? v.join(',') : String(v);
    const enc = val.replace(/[^A-Za-z0-9_.:@,-]/gu, (c) => encodeURIComponent(c));
    parts.push(`${k}=${enc}`);
  }
  return parts.length ? `?${parts.join('&')}` : '';
}

// Timeouts on the wired server (docs/protocol.md, "Timeouts and keep-alive"): each fires at its
// time or at most one --tick-ms later, never early. A test measures from the moment the client
// sees the timeout start (a hello, a connect, a reply), so it allows:
//   EARLY_MARGIN_MS          the client sees that moment up to this much after the server did (a
//                            loopback hop and the test process's event loop);
//   SCHEDULING_ALLOWANCE_MS  on top of the one tick: the server's loop reaching the expiry and the
//                            client hearing of it, on 2 cores shared with compilers. Stated per
//                            build, since a sanitizer slows every step: plain 100 ms, ASan + UBSan
//                            150 ms, TSan 250 ms (measured with --tick-ms 20 on this machine under
//                            load: the whole lateness, tick included, was at most 63 ms plain).
// With the base --tick-ms 20 a 1 s timeout must land in [950, 1020 + allowance] ms: a server whose
// wiring is a handful of ticks late, or one tick early, fails.
export const EARLY_MARGIN_MS = 50;
export const SANITIZER = (() => {
  if (!existsSync(BIN)) return 'none';
  const image = readFileSync(BIN);
  // A static runtime names itself; a shared one (GCC's default) leaves its entry point's name.
  if (image.includes('ThreadSanitizer') || image.includes('__tsan_init')) return 'thread';
  if (image.includes('AddressSanitizer') || image.includes('__asan_init')) return 'address';
  return 'none';
})();
// Running a server out of descriptors is tested in the plain build only: UBSan's vptr check probes
// memory through a pipe of its own, so with no descriptor left it reports a false "invalid vptr"
// (and exits) on the first type it has not cached yet.
export const OUT_OF_DESCRIPTORS_SKIP = SANITIZER === 'address' &&
  'UBSan needs a descriptor of its own to check a vptr: tested in the plain build';
export const SCHEDULING_ALLOWANCE_MS = { none: 100, address: 150, thread: 250 }[SANITIZER];

// The latest a timeout of `timeoutMs` may be seen on `srv`, measured as above (+ extraMs when the
// test can only look every so often, e.g. polling /admin/stats).
export function latestMs(srv, timeoutMs, extraMs = 0) {
  return timeoutMs + srv.tickMs + SCHEDULING_ALLOWANCE_MS + extraMs;
}

// Asserts that a timeout of `timeoutMs` was seen `dt` ms after it started: never early, at most one
// tick late plus the allowance.
export function assertOnTime(srv, dt, timeoutMs, what, extraMs = 0) {
  assert.ok(dt >= timeoutMs - EARLY_MARGIN_MS,
    `${what} after ${dt} ms: early (timeout ${timeoutMs} ms)`);
  const latest = latestMs(srv, timeoutMs, extraMs);
  assert.ok(dt <= latest,
    `${what} after ${dt} ms: late (timeout ${timeoutMs} ms + tick ${srv.tickMs} ms + allowance ${SCHEDULING_ALLOWANCE_MS + extraMs} ms (${SANITIZER} build) = ${latest} ms)`);
}

// When a message was received (Date.now()), for the WebSocket and SSE clients' items.
const receivedAt = new WeakMap();
export function arrivedAt(item) {
  const at = receivedAt.get(item);
  assert.ok(at !== undefined, `no arrival time for ${JSON.stringify(item)}`);
  return at;
}

let uniq = 0;
// A fresh identifier, unique within this process (tests share servers within a file).
export function uid(prefix = 'u') {
  uniq += 1;
  return `${prefix}${process.pid}_${uniq}`;
}

// Waits until `fn()` resolves truthy; returns that value.
export async function waitFor(fn, timeoutMs = 3000, what = 'condition', intervalMs = 25) {
  const deadline = Date.now() + timeoutMs;
  let last;
  for (;;) {
    last = await fn();
    if (last) return last;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(intervalMs);
  }
}

function describe(items) {
  const s = JSON.stringify(items.slice(-20));
  return s.length > 1500 ? `${s.slice(0, 1500)}…` : s;
}

// A queue of received items with a cursor: next(pred) returns the first item after the cursor that
// matches (waiting for it if needed) and moves the cursor past it.
export class Inbox {
  constructor(name) {
    this.name = name;
    this.items = [];
    this.cursor = 0;
    this.waiters = [];
    this.ended = false;
  }

  push(item) {
    if (item !== null && typeof item === 'object') receivedAt.set(item, Date.now());
    this.items.push(item);
    this.#wake();
  }

  end() {
    this.ended = true;
    this.#wake();
  }

  #wake() {
    for (const w of [...this.waiters]) w();
  }

  static match(pred) {
    if (typeof pred === 'string') return (m) => m && m.type === pred;
    return pred || (() => true);
  }

  #find(pred) {
    for (let i = this.cursor; i < this.items.length; i++) {
      if (pred(this.items[i])) return i;
    }
    return -1;
  }

  next(pred, timeoutMs = 3000) {
    const p = Inbox.match(pred);
    return new Promise((resolve, reject) => {
      const check = () => {
        const i = this.#find(p);
        if (i >= 0) {
          done();
          this.cursor = i + 1;
          resolve(this.items[i]);
          return true;
        }
        if (this.ended) {
          done();
          reject(new Error(`${this.name}: ended before a matching item (${pred}); got ${describe(this.items)}`));
          return true;
        }
        return false;
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`${this.name}: no matching item within ${timeoutMs} ms (${pred}); got ${describe(this.items)}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        const k = this.waiters.indexOf(check);
        if (k >= 0) this.waiters.splice(k, 1);
      };
      if (!check()) this.waiters.push(check);
    });
  }

  // Collects the next n items after the cursor matching pred.
  async take(n, pred, timeoutMs = 3000) {
    const out = [];
    const deadline = Date.now() + timeoutMs;
    while (out.length < n) out.push(await this.next(pred, Math.max(1, deadline - Date.now())));
    return out;
  }

  // Asserts that no item after the cursor matches within ms (does not move the cursor).
  async none(pred, ms = 300) {
    await sleep(ms);
    const i = this.#find(Inbox.match(pred));
    assert.equal(i, -1, `${this.name}: unexpected item ${JSON.stringify(this.items[i])}`);
  }

  // Items after the cursor (not consumed).
  rest() {
    return this.items.slice(this.cursor);
  }
}

// ---------------------------------------------------------------------------------------------
// WebSocket client

export class WsClient {
  constructor(url, opts = {}) {
    this.url = url;
    this.inbox = new Inbox(`ws ${url}`);
    this.pings = new Inbox(`ws pings ${url}`);
    this.raw = [];
    this.socket = new WebSocket(url, {
      perMessageDeflate: false,
      autoPong: opts.autoPong ?? true,
      handshakeTimeout: 5000,
      maxPayload: 64 * 1024 * 1024,
      ...(opts.ca ? { ca: opts.ca } : {}),
    });
    this.closed = new Promise((resolve) => {
      this.socket.on('close', (code, reason) => {
        this.closeInfo = { code, reason: reason.toString(), at: Date.now() };
        this.inbox.end();
        this.pings.end();
        resolve(this.closeInfo);
      });
    });
    this.socket.on('message', (data, isBinary) => {
      const text = data.toString();
      this.raw.push(text);
      let msg;
      try {
        msg = JSON.parse(text);
      } catch {
        msg = { type: '__unparsable__', text, isBinary };
      }
      this.inbox.push(msg);
    });
    this.socket.on('ping', () => this.pings.push({ at: Date.now() }));
    this.socket.on('error', (e) => { this.error = e; });
    this.opened = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve(this));
      this.socket.once('unexpected-response', (req, res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c) => { body += c; });
        res.on('end', () => {
          const err = new Error(`ws handshake refused: HTTP ${res.statusCode} ${body}`);
          err.status = res.statusCode;
          err.headers = res.headers;
          err.body = body;
          reject(err);
          req.destroy();
        });
      });
      this.socket.once('error', reject);
      this.socket.once('close', () => reject(new Error('ws closed before open')));
    });
    this.opened.catch(() => {});
  }

  next(pred, timeoutMs) { return this.inbox.next(pred, timeoutMs); }
  none(pred, ms) { return this.inbox.none(pred, ms); }
  get messages() { return this.inbox.items; }
  // Ids of the `message` envelopes received so far.
  ids() { return this.inbox.items.filter((m) => m.type === 'message').map((m) => m.id); }

  send(obj) { this.socket.send(typeof obj === 'string' ? obj : JSON.stringify(obj)); }

  // Round trip: our ping is answered by a pong, so everything sent before it was processed.
  async sync(timeoutMs = 3000) {
    this.send({ type: 'ping' });
    return this.next('pong', timeoutMs);
  }

  isOpen() { return this.socket.readyState === WebSocket.OPEN; }

  async waitClosed(timeoutMs = 3000) {
    let t;
    const timeout = new Promise((_, rej) => {
      t = setTimeout(() => rej(new Error(`ws not closed within ${timeoutMs} ms; got ${describe(this.inbox.items)}`)), timeoutMs);
    });
    try {
      return await Promise.race([this.closed, timeout]);
    } finally {
      clearTimeout(t);
    }
  }

  async close() {
    if (this.socket.readyState === WebSocket.CLOSED) return;
    try { this.socket.close(1000); } catch { this.socket.terminate(); }
    try {
      await this.waitClosed(1000);
    } catch {
      this.socket.terminate();
    }
  }

  terminate() { this.socket.terminate(); }
}

// ---------------------------------------------------------------------------------------------
// SSE client over raw HTTP (node:http), parsing the event stream by hand.

export class SseClient {
  constructor(host, port, pathAndQuery, headers = {}, ca = null) {
    this.events = new Inbox(`sse ${pathAndQuery}`);
    this.comments = new Inbox(`sse comments ${pathAndQuery}`);
    this.buf = '';
    this.cur = null;
    this.ended = new Promise((resolve) => { this._resolveEnded = resolve; });
    this.response = new Promise((resolve, reject) => {
      this.req = (ca ? https : http).get({
        host, port, path: pathAndQuery, agent: false, ...(ca ? { ca } : {}),
        headers: { Accept: 'text/event-stream', ...headers },
      }, (res) => {
        this.res = res;
        this.status = res.statusCode;
        this.headers = res.headers;
        res.setEncoding('utf8');
        if (res.statusCode !== 200) {
          let body = '';
          res.on('data', (c) => { body += c; });
          res.on('end', () => {
            this.body = body;
            try { this.json = JSON.parse(body); } catch { /* not JSON */ }
            this.#finish();
            resolve(this);
          });
          return;
        }
        res.on('data', (c) => this.#feed(c));
        res.on('end', () => this.#finish());
        res.on('error', () => this.#finish());
        res.on('close', () => this.#finish());
        resolve(this);
      });
      this.req.on('error', (e) => { this.error = e; this.#finish(); reject(e); });
    });
    this.response.catch(() => {});
  }

  #finish() {
    if (this.endedAt) return;
    this.endedAt = Date.now();
    this.events.end();
    this.comments.end();
    this._resolveEnded({ at: this.endedAt });
  }

  #feed(chunk) {
    this.buf += chunk;
    // Lines end with \r\n, \n or \r; keep a trailing partial line (and a lone trailing \r, which
    // may be the first half of \r\n) in the buffer.
    for (;;) {
      const m = /\r\n|\n|\r(?!$)/u.exec(this.buf);
      if (!m) break;
      const line = this.buf.slice(0, m.index);
      this.buf = this.buf.slice(m.index + m[0].length);
      this.#line(line);
    }
  }

  #line(line) {
    if (line === '') {
      if (this.cur && this.cur.data !== undefined) {
        const ev = this.cur;
        try { ev.json = JSON.parse(ev.data); } catch { /* not JSON */ }
        ev.at = Date.now();
        this.events.push(ev);
      }
      this.cur = null;
      return;
    }
    if (line.startsWith(':')) {
      this.comments.push({ text: line.slice(1).trim(), at: Date.now() });
      return;
    }
    const i = line.indexOf(':');
    const field = i < 0 ? line : line.slice(0, i);
    let value = i < 0 ? '' : line.slice(i + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.cur ??= { fields: [] };
    this.cur.fields.push(field);
    if (field === 'data') this.cur.data = this.cur.data === undefined ? value : `${this.cur.data}\n${value}`;
    else if (field === 'event') this.cur.event = value;
    else if (field === 'id') this.cur.id = value;
    else if (field === 'retry') this.cur.retry = value;
  }

  // next event whose JSON data matches (a string matches json.type).
  next(pred, timeoutMs) {
    const p = typeof pred === 'string' ? (e) => e.json && e.json.type === pred : pred;
    return this.events.next(p, timeoutMs);
  }

  none(pred, ms) {
    const p = typeof pred === 'string' ? (e) => e.json && e.json.type === pred : pred;
    return this.events.none(p, ms);
  }

  ids() { return this.events.items.filter((e) => e.json && e.json.type === 'message').map((e) => e.json.id); }

  async waitEnded(timeoutMs = 3000) {
    let t;
    const timeout = new Promise((_, rej) => {
      t = setTimeout(() => rej(new Error(`sse response not ended within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([this.ended, timeout]);
    } finally {
      clearTimeout(t);
    }
  }

  close() {
    this.req.destroy();
    if (this.res) this.res.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// Plain HTTP request (node:http): one connection per request unless an agent is given.

// With `ca` (a PEM certificate to trust) it is HTTPS.
export function request(host, port, method, pathAndQuery, { headers = {}, body, agent = false, timeoutMs = 10000, ca = null } = {}) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let payload = body;
    const h = { ...headers };
    if (body !== undefined && typeof body !== 'string' && !Buffer.isBuffer(body)) {
      payload = JSON.stringify(body);
      h['Content-Type'] ??= 'application/json';
    }
    if (payload !== undefined) h['Content-Length'] = Buffer.byteLength(payload);
    const options = { host, port, method, path: pathAndQuery, headers: h, agent, ...(ca ? { ca } : {}) };
    const req = (ca ? https : http).request(options, (res) => {
      const socket = res.socket;
      const localPort = socket && socket.localPort;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      res.on('end', () => {
        clearTimeout(timer);
        let json;
        try { json = JSON.parse(text); } catch { /* not JSON */ }
        resolve({ status: res.statusCode, headers: res.headers, text, json, localPort, socket, elapsed: Date.now() - started });
      });
      res.on('error', (e) => { clearTimeout(timer); reject(e); });
    });
    const timer = setTimeout(() => {
      req.destroy(new Error(`${method} ${pathAndQuery}: no response within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (e) => { clearTimeout(timer); reject(e); });
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------
// The server under test

export class Server {
  constructor(proc, host, port, token, args, ca = null) {
    this.ca = ca; // the certificate to trust when serving TLS, else null
    this.proc = proc;
    this.host = host;
    this.port = port;
    this.token = token;
    this.args = args;
    this.clients = new Set();
    this.stopped = false;
  }

  get base() { return `${this.ca ? 'https' : 'http'}://${this.host}:${this.port}`; }
  wsUrl(params) { return `${this.ca ? 'wss' : 'ws'}://${this.host}:${this.port}/ws${query(params)}`; }

  // Opens a WebSocket; resolves once it is open (rejects with err.status on a refused handshake).
  async ws(params, opts) {
    const c = new WsClient(this.wsUrl(params), { ca: this.ca, ...opts });
    this.clients.add(c);
    await c.opened;
    return c;
  }

  // Opens a WebSocket and waits for its hello (available as client.hello).
  async wsHello(params, opts, timeoutMs = 3000) {
    const c = await this.ws(params, opts);
    c.hello = await c.next('hello', timeoutMs);
    c.helloAt = arrivedAt(c.hello);
    return c;
  }

  // The HTTP status and body of a refused WebSocket handshake.
  async wsRefused(params) {
    const c = new WsClient(this.wsUrl(params), { ca: this.ca });
    this.clients.add(c);
    try {
      await c.opened;
    } catch (e) {
      if (e.status) {
        let json;
        try { json = JSON.parse(e.body); } catch { /* not JSON */ }
        return { status: e.status, headers: e.headers, text: e.body, json };
      }
      throw e;
    }
    c.terminate();
    throw new Error(`ws handshake with ${JSON.stringify(params)} was accepted`);
  }

  async sse(params, headers = {}) {
    const c = new SseClient(this.host, this.port, `/sse${query(params)}`, headers, this.ca);
    this.clients.add(c);
    await c.response;
    return c;
  }

  async sseHello(params, headers = {}, timeoutMs = 3000) {
    const c = await this.sse(params, headers);
    assert.equal(c.status, 200, `sse refused: ${c.status} ${c.body}`);
    const event = await c.next('hello', timeoutMs);
    c.hello = event.json;
    c.helloAt = arrivedAt(event);
    return c;
  }

  poll(params, opts = {}) {
    return request(this.host, this.port, 'GET', `/poll${query(params)}`, { timeoutMs: 15000, ca: this.ca, ...opts });
  }

  get(pathAndQuery, opts = {}) {
    return request(this.host, this.port, 'GET', pathAndQuery, { ca: this.ca, ...opts });
  }

  // Admin request; token defaults to the right one, null sends no Authorization header.
  admin(method, pathAndQuery, { body, token = this.token, headers = {} } = {}) {
    const h = { ...headers };
    if (token !== null) h.Authorization = `Bearer ${token}`;
    return request(this.host, this.port, method, pathAndQuery, { headers: h, body, ca: this.ca });
  }

  async publish(body) {
    const r = await this.admin('POST', '/admin/publish', { body });
    assert.equal(r.status, 200, `publish ${JSON.stringify(body)} -> ${r.status} ${r.text}`);
    assert.equal(typeof r.json.id, 'number', `publish reply ${r.text}`);
    return r.json;
  }

  async kick(user) {
    const r = await this.admin('POST', '/admin/kick', { body: { user } });
    assert.equal(r.status, 200, `kick -> ${r.status} ${r.text}`);
    return r.json;
  }

  async stats() {
    const r = await this.admin('GET', '/admin/stats');
    assert.equal(r.status, 200, `stats -> ${r.status} ${r.text}`);
    return r.json;
  }

  // Waits until pred(stats) holds; returns those stats.
  async statsUntil(pred, timeoutMs = 3000, what = 'stats condition') {
    let last;
    try {
      return await waitFor(async () => {
        last = await this.stats();
        return pred(last) ? last : null;
      }, timeoutMs, what, 40);
    } catch (e) {
      e.message += `; last stats: ${JSON.stringify({ ...last, wheel: undefined })}`;
      throw e;
    }
  }

  // How long an absence check waits once it has synchronised: a few ticks past the latest moment
  // anything already under way could still be sent (a tick and the scheduling allowance).
  get quietMs() { return latestMs(this, 5 * this.tickMs); }

  // Asserts that `client` (srv.ws or srv.sse, connected as `user`) gets no message beyond those
  // already taken: a marker published to `user` must be the very next message (whatever the server
  // had queued for the client comes before it), and nothing may follow it for quietMs. The
  // marker's id is returned; the client's cursor is past it.
  async expectNoMoreMessages(client, user, what = 'no more messages') {
    const marker = await this.publish({ user, data: { marker: what } });
    const next = await client.next('message', 5000);
    const envelope = next.json ?? next;
    assert.equal(envelope.id, marker.id, `${what}: ${JSON.stringify(envelope)} came before the marker`);
    await client.none('message', this.quietMs);
    return marker.id;
  }

  closeClients() {
    for (const c of this.clients) {
      try {
        if (c instanceof WsClient) c.terminate();
        else c.close();
      } catch { /* already closed */ }
    }
    this.clients.clear();
  }

  // Sends a signal and waits for the exit; resolves {code, signal, ms}.
  async signalAndWait(sig = 'SIGTERM', timeoutMs = 5000) {
    const started = Date.now();
    const exited = this.exited;
    this.proc.kill(sig);
    let t;
    const timeout = new Promise((resolve) => { t = setTimeout(() => resolve(null), timeoutMs); });
    const r = await Promise.race([exited, timeout]);
    clearTimeout(t);
    if (!r) {
      this.proc.kill('SIGKILL');
      await exited;
      throw new Error(`server did not exit within ${timeoutMs} ms of ${sig}; log:\n${this.logTail()}`);
    }
    return { ...r, ms: Date.now() - started };
  }

  // Closes every client, SIGTERM, asserts exit status 0.
  async stop({ closeClients = true, timeoutMs } = {}) {
    if (this.stopped) return this.exitInfo;
    this.stopped = true;
    if (closeClients) this.closeClients();
    if (this.exitInfo) {
      assert.fail(`server had already exited: ${JSON.stringify(this.exitInfo)}; log:\n${this.logTail()}`);
    }
    const r = await this.signalAndWait('SIGTERM', timeoutMs ?? this.drainMs + 5000);
    // Its output is complete only once the pipes have closed: a sanitizer reports at exit.
    await Promise.race([this.outputClosed, sleep(2000)]);
    assertCleanExit(r, this.log);
    return r;
  }

  logTail(n = 40) {
    return this.log.split('\n').slice(-n).join('\n');
  }
}

function flagName(a) {
  return a.startsWith('--') ? a.split('=')[0] : null;
}

// Starts the server with `args` (an array of flags) on an ephemeral port.
// tokenVia: 'flag' (--admin-token) or 'env' (RINGCAST_ADMIN_TOKEN).
// maxFiles: start it under `ulimit -n maxFiles` (through sh, which execs it: same pid).
// tls: serve HTTPS/WSS with a fresh self-signed certificate for 127.0.0.1 (see makeCertificate).
// healthy: false returns once it listens, without waiting for /healthz to answer 200 (a node whose
// Redis is down).
export async function startServer(args = [], { env = {}, timeoutMs = 10000, tokenVia = 'flag', maxFiles, tls = false, healthy = true } = {}) {
  if (!existsSync(BIN)) throw new Error(`server binary not found: ${BIN} (set RINGCAST_BIN)`);
  const given = new Set(args.map(flagName).filter(Boolean));
  const token = randomBytes(16).toString('hex');
  const full = ['--listen', '127.0.0.1:0'];
  const childEnv = { ...process.env, ...env };
  delete childEnv.RINGCAST_ADMIN_TOKEN;
  if (tokenVia === 'env') childEnv.RINGCAST_ADMIN_TOKEN = token;
  else full.push('--admin-token', token);
  for (const [k, v] of Object.entries(BASE_FLAGS)) if (!given.has(k)) full.push(k, v);
  const certificate = tls ? makeCertificate() : null;
  if (certificate) full.push('--tls-cert', certificate.certFile, '--tls-key', certificate.keyFile);
  full.push(...args);
  const drainArg = full[full.lastIndexOf('--drain') + 1];
  const spawnOpts = { stdio: ['ignore', 'pipe', 'pipe'], env: childEnv };
  const proc = maxFiles === undefined
    ? spawn(BIN, full, spawnOpts)
    : spawn('sh', ['-c', `ulimit -n ${Number(maxFiles)} && exec "$0" "$@"`, BIN, ...full], spawnOpts);
  live.add(proc);
  let log = '';
  let srv;
  const outputClosed = new Promise((resolve) => { proc.on('close', resolve); });
  const exited = new Promise((resolve) => {
    proc.on('exit', (code, signal) => {
      live.delete(proc);
      const info = { code, signal };
      if (srv) srv.exitInfo = info;
      resolve(info);
    });
  });
  const port = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening on" line within ${timeoutMs} ms; log:\n${log}`)), timeoutMs);
    const onData = (chunk) => {
      log += chunk;
      if (srv) srv.log = log;
      const m = /listening on (\S+):(\d+)/u.exec(log);
      if (m && !srv) {
        clearTimeout(timer);
        resolve(Number(m[2]));
      }
    };
    proc.stderr.setEncoding('utf8');
    proc.stdout.setEncoding('utf8');
    proc.stderr.on('data', onData);
    proc.stdout.on('data', onData);
    proc.on('error', (e) => { clearTimeout(timer); reject(e); });
    exited.then((info) => {
      clearTimeout(timer);
      reject(new Error(`server exited early ${JSON.stringify(info)}; args ${full.join(' ')}; log:\n${log}`));
    });
  });
  srv = new Server(proc, '127.0.0.1', port, token, full, certificate?.cert ?? null);
  srv.certificate = certificate; // { certFile, keyFile, cert } with tls, else null
  srv.log = log;
  srv.exited = exited;
  srv.outputClosed = outputClosed;
  srv.drainMs = parseDurationMs(drainArg ?? '5');
  srv.tickMs = Number(full[full.lastIndexOf('--tick-ms') + 1]);
  if (!healthy) return srv;
  // Wait until it answers.
  await waitFor(async () => {
    try {
      const r = await srv.get('/healthz', { timeoutMs: 1000 });
      return r.status === 200;
    } catch {
      return false;
    }
  }, timeoutMs, '/healthz');
  return srv;
}

// A self-signed EC certificate for 127.0.0.1 and localhost, made by the openssl command line:
// { certFile, keyFile, cert (the PEM text, to trust) }.
export function makeCertificate() {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ringcast-tls-'));
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
    '-nodes', '-days', '1', '-subj', '/CN=ringcast test', '-keyout', keyFile, '-out', certFile,
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost'], { stdio: 'pipe' });
  return { certFile, keyFile, cert: readFileSync(certFile, 'utf8') };
}

export function parseDurationMs(s) {
  const m = /^(\d+)(ms|s|m|h)?$/u.exec(String(s));
  if (!m) return 5000;
  const mult = { ms: 1, s: 1000, m: 60000, h: 3600000 }[m[2] ?? 's'];
  return Number(m[1]) * mult;
}

// Runs the server binary to its end (for --help and bad flags): { code, signal, out, err }.
export function runBinary(args, timeoutMs = 5000) {
  return new Promise((resolve, reject) => {
    const p = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.setEncoding('utf8').on('data', (c) => { out += c; });
    p.stderr.setEncoding('utf8').on('data', (c) => { err += c; });
    const t = setTimeout(() => { p.kill('SIGKILL'); reject(new Error(`${args.join(' ')}: still running after ${timeoutMs} ms`)); }, timeoutMs);
    p.on('error', (e) => { clearTimeout(t); reject(e); });
    p.on('exit', (code, signal) => { clearTimeout(t); resolve({ code, signal, out, err }); });
  });
}

// A TCP port free on 127.0.0.1 now, for a helper process (redis-server, nginx) to listen on.
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

// The path of a command the suite needs (sbin included, where Debian puts nginx), or a clear error.
export function requireCommand(cmd) {
  try {
    return execFileSync('sh', ['-c', `PATH="$PATH:/usr/sbin" command -v ${cmd}`], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(`${cmd} is not installed (scripts/deps.sh test installs it)`);
  }
}

// A redis-server without persistence on a free loopback port, for a suite of its own: its URL,
// cli(...args) (redis-cli's answer, trimmed) and stop() (SIGTERM, awaited).
export async function startRedis() {
  const port = await freePort();
  const proc = spawn(requireCommand('redis-server'), ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  await waitFor(() => new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  }), 5000, 'redis-server listening');
  const cli = (...args) => execFileSync(requireCommand('redis-cli'), ['-p', String(port), ...args], { encoding: 'utf8' }).trim();
  return { url: `redis://127.0.0.1:${port}/0`, cli, stop: async () => { proc.kill('SIGTERM'); await exited; } };
}

// A raw TCP connection to the server, for requests no HTTP client would send.
export function rawConnect(srv) {
  return new Promise((resolve, reject) => {
    const s = net.connect(srv.port, srv.host, () => resolve(s));
    s.on('error', reject);
  });
}

// Strictly increasing?
// Sends `count` pipelined polls with a new user each (`prefix` and a number; since=0: answered at
// once, with a gap) over one keep-alive connection, `inFlight` at a time; resolves with how many
// replies had each status code (a Map, '200' -> n). Issue 35's attack on the session table.
export async function floodNewUsers(srv, prefix, count, inFlight = 200) {
  const s = await rawConnect(srv);
  const statuses = new Map();
  let sent = 0;
  let answered = 0;
  let tail = '';
  let wake = null;
  s.on('data', (chunk) => {
    const text = tail + chunk.toString('latin1');
    let end = 0;
    for (const m of text.matchAll(/HTTP\/1\.1 (\d{3}) /gu)) {
      statuses.set(m[1], (statuses.get(m[1]) ?? 0) + 1);
      ++answered;
      end = m.index + m[0].length;
    }
    // What may be the start of a status line cut by the chunk's end (never one counted).
    tail = text.slice(Math.max(end, text.length - 12));
    if (wake && sent - answered <= inFlight / 2) { const w = wake; wake = null; w(); }
  });
  while (sent < count) {
    let batch = '';
    const n = Math.min(inFlight / 2, count - sent);
    for (let i = 0; i < n; i++) batch += `GET /poll?user=${prefix}${sent + i}&since=0 HTTP/1.1\r\nHost: x\r\n\r\n`;
    sent += n;
    s.write(batch);
    if (sent - answered >= inFlight) await new Promise((r) => { wake = r; setTimeout(r, 1000); });
  }
  await waitFor(() => answered >= count, 30000, `the last of ${count} replies (${answered})`, 20);
  s.destroy();
  return statuses;
}

export function assertIncreasing(ids, what = 'ids') {
  for (let i = 1; i < ids.length; i++) {
    assert.ok(ids[i] > ids[i - 1], `${what} not strictly increasing at ${i}: ${JSON.stringify(ids)}`);
  }
}

// ---------------------------------------------------------------------------------------------
// Hand-made WebSocket, for frames the `ws` package would refuse to send, and /proc readings.

// Builds one WebSocket frame. Client frames are masked unless `mask: false`.
export function wsFrame(opcode, payload, { mask = true, fin = true } = {}) {
  const data = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
  const len = data.length;
  const ext = len < 126 ? 0 : len < 65536 ? 2 : 8;
  const head = Buffer.alloc(2 + ext + (mask ? 4 : 0));
  head[0] = (fin ? 0x80 : 0) | opcode;
  head[1] = (mask ? 0x80 : 0) | (ext === 0 ? len : ext === 2 ? 126 : 127);
  if (ext === 2) head.writeUInt16BE(len, 2);
  if (ext === 8) head.writeBigUInt64BE(BigInt(len), 2);
  if (!mask) return Buffer.concat([head, data]);
  const key = randomBytes(4);
  key.copy(head, 2 + ext);
  const body = Buffer.alloc(len);
  for (let i = 0; i < len; i++) body[i] = data[i] ^ key[i % 4];
  return Buffer.concat([head, body]);
}

// Splits server frames (unmasked) off the front of `buf`: { frames: [{fin, opcode, payload}], rest }.
export function wsParseFrames(buf) {
  const frames = [];
  let at = 0;
  for (;;) {
    if (buf.length - at < 2) break;
    let len = buf[at + 1] & 0x7f;
    let off = at + 2;
    if (len === 126) {
      if (buf.length - at < 4) break;
      len = buf.readUInt16BE(at + 2);
      off += 2;
    } else if (len === 127) {
      if (buf.length - at < 10) break;
      len = Number(buf.readBigUInt64BE(at + 2));
      off += 8;
    }
    if (buf.length < off + len) break;
    frames.push({ fin: (buf[at] & 0x80) !== 0, opcode: buf[at] & 0x0f, payload: buf.subarray(off, off + len) });
    at = off + len;
  }
  return { frames, rest: buf.subarray(at) };
}

// A WebSocket upgrade over a raw socket: resolves { socket, frames: Inbox, closed } once the 101
// is in. Received messages (fragments joined) and control frames are pushed to `frames`
// ({opcode, payload, text, code} with code set for close frames); `closed` resolves when the TCP
// connection ends.
export async function rawWebSocket(srv, params) {
  const socket = await rawConnect(srv);
  const frames = new Inbox(`raw ws ${query(params)}`);
  const key = randomBytes(16).toString('base64');
  socket.write(`GET /ws${query(params)} HTTP/1.1\r\nHost: ${srv.host}:${srv.port}\r\n` +
    `Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\n` +
    'Sec-WebSocket-Version: 13\r\n\r\n');
  const closed = new Promise((resolve) => {
    socket.on('close', () => { frames.end(); resolve(); });
  });
  socket.on('error', () => {});
  await new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    let upgraded = false;
    const fragments = [];
    let dataOpcode = 0;
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (!upgraded) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buf.subarray(0, end).toString();
        if (!head.startsWith('HTTP/1.1 101')) {
          reject(new Error(`upgrade refused: ${head}`));
          return;
        }
        upgraded = true;
        buf = buf.subarray(end + 4);
        resolve();
      }
      const { frames: got, rest } = wsParseFrames(buf);
      buf = rest;
      for (const f of got) {
        if (f.opcode < 8) {  // a data frame: text, binary or a continuation of either
          fragments.push(f.payload);
          if (f.opcode !== 0) dataOpcode = f.opcode;
          if (!f.fin) continue;
          f.opcode = dataOpcode;
          f.payload = Buffer.concat(fragments.splice(0));
        }
        const code = f.opcode === 8 && f.payload.length >= 2 ? f.payload.readUInt16BE(0) : undefined;
        frames.push({ opcode: f.opcode, payload: f.payload, text: f.payload.toString(), code });
      }
    });
    closed.then(() => reject(new Error('closed before the upgrade')));
  });
  return { socket, frames, closed };
}

// Resident memory of a process in KiB (VmRSS in /proc/PID/status).
export function rssKiB(pid) {
  const m = /^VmRSS:\s+(\d+) kB/mu.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]);
}

// CPU time a process has used so far, user + system, in clock ticks (/proc/PID/stat).
export function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
}

// Waits until the process has used no CPU for `quietMs` (e.g. every write it has waits on a full
// socket), sampling its RSS every 5 ms: returns the highest RSS seen (at least `peakKiB`) and when
// the quiet began.
export async function untilCpuQuiet(pid, { peakKiB = 0, quietMs = 150 } = {}) {
  let peak = Math.max(peakKiB, rssKiB(pid));
  let cpu = cpuTicks(pid);
  let quietSince = Date.now();
  while (Date.now() - quietSince < quietMs) {
    await new Promise((resolve) => setTimeout(resolve, 5));
    peak = Math.max(peak, rssKiB(pid));
    const now = cpuTicks(pid);
    if (now !== cpu) { cpu = now; quietSince = Date.now(); }
  }
  return { peakKiB: peak, quietSince };
}

// The server is still fine: /healthz answers and a publish reaches a fresh WebSocket client.
export async function assertServes(srv) {
  const health = await srv.get('/healthz', { timeoutMs: 3000 });
  assert.equal(health.status, 200, `/healthz -> ${health.status}`);
  const user = uid('well');
  const c = await srv.wsHello({ user });
  const { id } = await srv.publish({ user, data: { well: user } });
  const m = await c.next((x) => x.type === 'message' && x.id === id, 3000);
  assert.deepEqual(m.data, { well: user });
  await c.close();
}
