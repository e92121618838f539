// A small in-process stand-in for the ringcast server, written from docs/protocol.md.
//
// Two uses: client.test.mjs scripts exact server behaviour at the client library (refuse a
// transport, send `reconnect` with a given retry_ms, kick, cut every socket), which the real
// server cannot be made to do on cue; and RINGCAST_FAKE=1 runs the page suites without the C++
// build, for work on web/ alone. The real server remains the reference: the page suites run
// against it by default.
import http from 'node:http';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WebSocketServer } from 'ws';

const WEB_ROOT = new URL('../../web/', import.meta.url).pathname;
const TYPES = { html: 'text/html', js: 'text/javascript', mjs: 'text/javascript', css: 'text/css' };
const SLOTS = 64;
const NAME = /^[A-Za-z0-9_.:@-]{1,64}$/;

export async function startFakeServer({ adminToken = 'fake-token', pollTimeoutMs = 25000 } = {}) {
  const fake = new FakeHub({ adminToken, pollTimeoutMs });
  const server = http.createServer((req, res) => fake.handle(req, res));
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname !== '/ws' || fake.refused.has('ws')) {
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => fake.acceptWs(ws, url.searchParams));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${server.address().port}`;
  fake.token = adminToken;
  fake.stop = async () => {
    fake.dropAll();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return fake;
}

class FakeHub {
  constructor({ adminToken, pollTimeoutMs }) {
    this.adminToken = adminToken;
    this.pollTimeoutMs = pollTimeoutMs;
    this.lastId = 0;
    this.history = [];
    this.sessions = new Map(); // "user/sid" -> { user, sid, channels, conn }
    this.refused = new Set(); // transports answered 404, to test fallback
    this.pings = 0; // WebSocket {"type":"ping"} frames received
    this.answerPings = true; // false: play a dead peer that never answers
    this.connects = []; // { transport, params } for every accepted connection, in order
    this.startedAt = Date.now();
  }

  // ---- hooks for the tests ----

  /** Cuts every live connection without a goodbye, as a network failure would. */
  dropAll() {
    for (const s of this.sessions.values()) {
      s.conn?.kill();
      s.conn = null;
    }
  }

  /**
   * Sends a raw envelope to every connection of `user`, then ends them if `end`. A long-poll
   * session between two polls gets it on its next poll.
   */
  sendRaw(user, env, { end = true } = {}) {
    for (const s of this.sessions.values()) {
      if (s.user !== user) continue;
      if (!s.conn) {
        if (end) s.pending = env;
        continue;
      }
      const conn = s.conn;
      conn.send(env); // a long-poll's send is its reply, which already detaches it
      if (end) {
        conn.end();
        this.detach(conn);
      }
    }
  }

  // ---- protocol ----

  publish({ data, channel, user }) {
    const message = {
      type: 'message',
      id: ++this.lastId,
      channel: channel ?? (user ? `user:${user}` : '*'),
      ts: Date.now(),
      data,
    };
    this.history.push(message);
    let recipients = 0;
    for (const s of this.sessions.values()) {
      if (s.conn && this.addressed(s, message)) {
        s.conn.deliver([message]);
        recipients++;
      }
    }
    return { id: message.id, recipients };
  }

  addressed(session, message) {
    const c = message.channel;
    return c === '*' || c === `user:${session.user}` || session.channels.has(c);
  }

  session(params) {
    const user = params.get('user');
    const sid = params.get('sid') ?? '0';
    const key = `${user}/${sid}`;
    let s = this.sessions.get(key);
    const resumed = Boolean(s);
    if (!s) this.sessions.set(key, (s = { user, sid }));
    s.channels = new Set((params.get('channels') ?? '').split(',').filter(Boolean));
    return { s, resumed };
  }

  backlog(session, since) {
    if (since === null) return [];
    return this.history.filter((m) => m.id > Number(since) && this.addressed(session, m));
  }

  attach(transport, params, conn) {
    const { s, resumed } = this.session(params);
    if (s.conn) s.conn.replaced();
    s.conn = conn;
    s.transport = transport;
    conn.session = s;
    this.connects.push({ transport, params: Object.fromEntries(params) });
    return { s, resumed };
  }

  /** Delivers an envelope left by sendRaw while the session had no connection. */
  flushPending(s) {
    if (!s.pending) return false;
    s.conn.send(s.pending);
    s.conn.end();
    s.pending = null;
    return true;
  }

  detach(conn) {
    if (conn.session?.conn === conn) conn.session.conn = null;
  }

  hello(s, resumed) {
    return {
      type: 'hello', session: `${s.user}/${s.sid}`, resumed, last_id: this.lastId, gap: false,
      heartbeat_s: 25, idle_timeout_s: 60, session_ttl_s: 120,
    };
  }

  acceptWs(ws, params) {
    const conn = {
      send: (env) => ws.send(JSON.stringify(env)),
      deliver: (messages) => messages.forEach((m) => ws.send(JSON.stringify(m))),
      end: () => ws.close(1000),
      kill: () => ws.terminate(),
      replaced: () => { conn.send({ type: 'close', reason: 'replaced' }); ws.close(1000); },
    };
    const { s, resumed } = this.attach('ws', params, conn);
    conn.send(this.hello(s, resumed));
    if (this.flushPending(s)) return;
    conn.deliver(this.backlog(s, params.get('since')));
    ws.on('message', (text) => {
      const msg = JSON.parse(text);
      if (msg.type === 'ping') {
        this.pings++;
        if (this.answerPings) conn.send({ type: 'pong' });
      }
      if (msg.type === 'subscribe') msg.channels.forEach((c) => s.channels.add(c));
      if (msg.type === 'unsubscribe') msg.channels.forEach((c) => s.channels.delete(c));
    });
    ws.on('close', () => this.detach(conn));
  }

  acceptSse(req, res, params) {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store' });
    const event = (name, env) => {
      const id = env.type === 'message' ? `id: ${env.id}\n` : '';
      res.write(`${id}event: ${name}\ndata: ${JSON.stringify(env)}\n\n`);
    };
    const conn = {
      send: (env) => event(env.type, env),
      deliver: (messages) => messages.forEach((m) => event('message', m)),
      end: () => res.end(),
      kill: () => res.destroy(),
      replaced: () => { event('close', { type: 'close', reason: 'replaced' }); res.end(); },
    };
    const since = params.get('since') ?? req.headers['last-event-id'] ?? null;
    const { s, resumed } = this.attach('sse', params, conn);
    conn.send(this.hello(s, resumed));
    if (this.flushPending(s)) return;
    conn.deliver(this.backlog(s, since));
    res.on('close', () => this.detach(conn));
  }

  acceptPoll(res, params) {
    const reply = (body) => {
      clearTimeout(timer);
      this.detach(conn);
      if (!res.writableEnded) json(res, 200, body);
    };
    const conn = {
      send: (env) => reply(env),
      deliver: (messages) => reply({ type: 'messages', messages, last_id: this.lastId, gap: false }),
      end: () => {},
      kill: () => res.destroy(),
      replaced: () => reply({ type: 'reconnect', reason: 'replaced', retry_ms: 0, last_id: this.lastId }),
    };
    const { s } = this.attach('poll', params, conn);
    if (this.flushPending(s)) return;
    const timer = setTimeout(
      () => reply({ type: 'reconnect', reason: 'timeout', retry_ms: 0, last_id: this.lastId }),
      this.pollTimeoutMs);
    res.on('close', () => { clearTimeout(timer); this.detach(conn); });
    const backlog = this.backlog(s, params.get('since'));
    if (backlog.length > 0) conn.deliver(backlog);
  }

  stats() {
    const byTransport = { ws: 0, sse: 0, poll: 0 };
    const occupancy = [new Array(SLOTS).fill(0), new Array(SLOTS).fill(0)];
    let i = 0;
    for (const s of this.sessions.values()) {
      if (s.conn) byTransport[s.transport]++;
      occupancy[i % 2][(i * 7) % SLOTS]++; // somewhere plausible: one armed timer per session
      i++;
    }
    const connected = byTransport.ws + byTransport.sse + byTransport.poll;
    const tick = Math.floor((Date.now() - this.startedAt) / 100);
    return {
      node: { address: this.url.replace('http://', ''), id: 'stand-in' },
      uptime_ms: Date.now() - this.startedAt, threads: 1,
      connections: { ...byTransport, total: connected },
      sessions: { total: this.sessions.size, connected },
      messages: { published: this.lastId, delivered: this.lastId, last_id: this.lastId },
      expirations: { idle: 0, poll_timeout: 0, session_ttl: 0, handshake: 0, max_age: 0, slow: 0, kicked: 0, replaced: 0 },
      sessions_reused: 0, moves: { reconnect: 0, activity: 0 },
      wheel: { tick, tick_ms: 100, slots: SLOTS, levels: 2, armed: this.sessions.size, occupancy,
               counters: { scheduled: 0, moved: 0, cancelled: 0, fired: 0, cascaded: 0 } },
    };
  }

  async handle(req, res) {
    const url = new URL(req.url, 'http://x');
    const path = url.pathname;
    if (['/sse', '/poll'].includes(path)) {
      if (this.refused.has(path.slice(1))) return json(res, 404, { error: 'not_found', message: path });
      if (!url.searchParams.get('user')) return json(res, 400, { error: 'bad_request', message: 'user' });
      return path === '/sse' ? this.acceptSse(req, res, url.searchParams) : this.acceptPoll(res, url.searchParams);
    }
    if (path.startsWith('/admin/')) {
      if (req.headers.authorization !== `Bearer ${this.adminToken}`) {
        return json(res, 401, { error: 'unauthorized', message: 'bad token' });
      }
      if (path === '/admin/stats') return json(res, 200, this.stats());
      const body = JSON.parse(await readBody(req));
      if (path === '/admin/publish') {
        const names = [body.channel, body.user].filter((n) => n !== undefined);
        if (!names.every((n) => NAME.test(n))) return json(res, 400, { error: 'bad_request', message: 'bad name' });
        return json(res, 200, this.publish(body));
      }
      if (path === '/admin/kick') {
        const kicked = [...this.sessions.values()].filter((s) => s.user === body.user);
        this.sendRaw(body.user, { type: 'close', reason: 'kicked' });
        return json(res, 200, { kicked: kicked.length });
      }
    }
    if (path === '/blank') {
      // An empty same-origin page for the client library tests to load ringcast.js into.
      res.writeHead(200, { 'Content-Type': 'text/html' });
      return res.end('<!doctype html><title>blank</title>');
    }
    const name = path === '/' ? 'index.html' : path === '/admin' ? 'admin.html' : path.slice(1);
    try {
      const body = await readFile(join(WEB_ROOT, name.replace(/[^\w.-]/g, '')));
      res.writeHead(200, { 'Content-Type': TYPES[name.split('.').pop()] ?? 'application/octet-stream' });
      res.end(body);
    } catch {
      json(res, 404, { error: 'not_found', message: path });
    }
  }
}

function json(res, status, body) {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readBody(req) {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (chunk) => { text += chunk; });
    req.on('end', () => resolve(text || '{}'));
  });
}
