// Measures the rows of the budget table in docs/security.md ("Budget"): for each kind of
// connection and request, the server memory it holds and the loop time it takes, on the real
// binary (one event loop, so the CPU the process spends is the loop's).
//   RINGCAST_BIN=build/server/ringcast node scripts/budget.mjs
// Memory is the growth of the server's RSS divided by the count; loop time is the CPU time of the
// server's threads (schedstat) divided by the count. Small counts keep it under a minute on a laptop.
// The side-door rows (issue 35) run at the default flags and also count the kernel's memory for
// the server's sockets (`ss -tm`: what each holds queued and allocated), and say whether a
// newcomer from another address still gets in.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIN, floodNewUsers, rawConnect, rawWebSocket, rssKiB, sleep, startServer, uid, waitFor,
} from '../tests/integration/harness.mjs';

// CPU time of every thread of the process, in ns (/proc/PID/task/TID/schedstat: time on a CPU).
function cpuNs(pid) {
  let sum = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      sum += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch { /* the thread ended */ }
  }
  return sum;
}

// Calls count(n) with the number of HTTP responses each chunk read from `s` completes the status
// line of (a status line split across two chunks counts once).
function onReplies(s, count) {
  let tail = '';
  s.on('data', (chunk) => {
    const text = tail + chunk.toString('latin1');
    count(text.split('HTTP/1.1 ').length - 1);
    tail = text.slice(-8);
  });
}

const rows = [];
// What an attack came to, beside the table: one line each (who was refused, how big a reply).
const outcomes = [];
const row = (what, n, kib, ns) => rows.push({
  what, n,
  memory: kib === null ? '—' : `${(kib / n).toFixed(2)} KiB`,
  loop: ns === null ? '—' : `${(ns / n / 1000).toFixed(1)} µs`,
});

async function measure(srv, n, open) {
  const pid = srv.proc.pid;
  const rss0 = rssKiB(pid);
  const cpu0 = cpuNs(pid);
  const held = await open(n);
  await sleep(300);
  return { kib: rssKiB(pid) - rss0, ticks: cpuNs(pid) - cpu0, held };
}

// The server's own defaults for the timeouts harness.mjs shortens, for the rows that run with the
// default flags.
const DEFAULT_TIMEOUTS = ['--tick-ms', '100', '--session-ttl', '2m', '--poll-timeout', '25s',
  '--heartbeat', '25s', '--idle-timeout', '1m'];

// Each row on a fresh server, so that memory another row freed is not reused and hidden. The rows
// that do not ask for the defaults open thousands of connections from 127.0.0.1: no per-address
// limit.
async function onFreshServer(fn, flags = ['--max-connections', '30000', '--session-ttl', '3s',
  '--max-connections-per-ip', '0']) {
  const writeTimeout = flags.includes('--write-timeout') ? [] : ['--write-timeout', '5s'];
  const srv = await startServer(['--threads', '1', ...writeTimeout, ...flags]);
  try {
    await fn(srv);
  } finally {
    await srv.stop();
  }
}

// Idle WebSockets and SSE streams, held polls: what a connection holds while nothing happens.
for (const [what, hello] of [['WebSocket', 'wsHello'], ['SSE stream', 'sseHello']]) {
  await onFreshServer(async (srv) => {
    const m = await measure(srv, 2000, async (n) => {
      const out = [];
      for (let i = 0; i < n; i++) out.push(await srv[hello]({ user: uid(hello) }));
      return out;
    });
    row(`${what} (idle, hello written)`, 2000, m.kib, m.ticks);
  });
}
await onFreshServer(async (srv) => {
  const m = await measure(srv, 2000, async (n) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      out.push(srv.poll({ user: uid('p') }, { timeoutMs: 60000 }).catch(() => {}));
    }
    await srv.statsUntil((s) => s.connections.poll >= n, 20000, 'held polls');
    return out;
  });
  row('held poll', 2000, m.kib, m.ticks);
  await srv.publish({ data: 'release' });
  await Promise.all(m.held);
});

// Sessions without a connection: created by polls answered at once, then dropped at their TTL.
await onFreshServer(async (srv) => {
  const before = await srv.stats();
  const m = await measure(srv, 20000, async (n) => {
    const s = await rawConnect(srv);
    let answered = 0;
    onReplies(s, (k) => { answered += k; });
    for (let i = 0; i < n; i += 500) {
      let batch = '';
      for (let j = i; j < i + 500; j++) batch += `GET /poll?user=${uid('t')}&since=0 HTTP/1.1\r\nHost: x\r\n\r\n`;
      s.write(batch);
      await waitFor(() => answered >= i + 500, 10000, 'poll replies', 5);
    }
    s.destroy();
  });
  row('session (poll answered at once: create, attach, reply, detach)', 20000, m.kib, m.ticks);
  const cpuAt = cpuNs(srv.proc.pid);
  await srv.statsUntil((s) => s.sessions.total <= before.sessions.total, 10000, 'TTL');
  row('session dropped at its TTL', 20000, null, cpuNs(srv.proc.pid) - cpuAt);
});

// Poll replies over a large history: 200 x 60 KB (12 MB).
await onFreshServer(async (srv) => {
  const blob = 'x'.repeat(60 * 1000);
  const first = (await srv.publish({ data: { blob } })).id;
  for (let i = 1; i < 200; i++) await srv.publish({ data: { blob } });
  let m = await measure(srv, 200, async (n) => {
    for (let i = 0; i < n; i++) await srv.poll({ user: uid('r'), since: first - 1 });
  });
  row('poll reply read at once (1 MiB of the history)', 200, null, m.ticks);
  // Unread: 20 clients, 10 pipelined resume polls each, never reading (until --write-timeout).
  m = await measure(srv, 20, async (n) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      const s = await rawConnect(srv);
      s.on('error', () => {});
      s.pause();
      let req = '';
      for (let j = 0; j < 10; j++) req += `GET /poll?user=${uid('h')}&since=${first - 1} HTTP/1.1\r\nHost: x\r\n\r\n`;
      s.write(req);
      out.push(s);
    }
    return out;
  });
  row('connection with 10 pipelined 1 MiB poll replies, not read', 20, m.kib, m.ticks);
  for (const s of m.held) s.destroy();
});

// Gzip poll replies over a history that compresses poorly (random base64, 48 KB a message): each
// reply about 1 MiB plain, 0.75 MiB gzipped, written from the messages' shared gzip pieces.
await onFreshServer(async (srv) => {
  let first = 0;
  for (let i = 0; i < 40; i++) {
    const { id } = await srv.publish({ data: randomBytes(36 * 1024).toString('base64') });
    first ||= id;
  }
  const m = await measure(srv, 200, async (n) => {
    const out = [];
    for (let i = 0; i < n; i++) {
      const s = await rawConnect(srv);
      s.on('error', () => {});
      s.pause();
      let req = '';
      for (let j = 0; j < 4; j++) {
        req += `GET /poll?user=${uid('g')}&since=${first - 1} HTTP/1.1\r\nHost: x\r\n` +
          'Accept-Encoding: gzip\r\n\r\n';
      }
      s.write(req);
      out.push(s);
    }
    return out;
  });
  row('connection with 4 pipelined 1 MiB gzip poll replies, not read', 200, m.kib, m.ticks);
  for (const s of m.held) s.destroy();
});

// An upgrade in place (SIGUSR2) with 30 WebSockets that do not read 24 sticky messages of 400 KB
// (9.6 MB owed to each, more than the sockets take): what the new process holds more than the
// old one, per connection. The state's size and the pause are printed below the table.
{
  const next = join(mkdtempSync(join(tmpdir(), 'ringcast-budget-')), 'ringcast-next');
  copyFileSync(BIN, next);
  chmodSync(next, 0o755);
  const srv = await startServer(['--threads', '1', '--upgrade-binary', next, '--max-body', '1048576']);
  try {
    for (let i = 0; i < 24; i++) {
      await srv.publish({ data: randomBytes(300 * 1024).toString('base64'), sticky: true, ttl: '1h' });
    }
    const sockets = [];
    for (let i = 0; i < 30; i++) {
      const s = await rawConnect(srv);
      s.on('error', () => {});
      s.pause();
      s.write(`GET /ws?user=${uid('u')} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n` +
        `Connection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n` +
        'Sec-WebSocket-Version: 13\r\n\r\n');
      sockets.push(s);
    }
    await srv.statsUntil((st) => st.connections.ws === 30, 5000, 'WebSockets');
    await sleep(300);
    const rss0 = rssKiB(srv.proc.pid);
    const from = srv.log.length;
    srv.proc.kill('SIGUSR2');
    await srv.statsUntil((st) => st.upgrades === 1, 20000, 'upgraded');
    await sleep(300);
    row('WebSocket not reading 9.6 MB of sticky messages, across an upgrade in place', 30,
      rssKiB(srv.proc.pid) - rss0, null);
    const log = srv.log.slice(from);
    outcomes.push(`upgrade in place with 30 such WebSockets: ${/a state of \d+ bytes[^\n]*/u.exec(log)?.[0]}; ` +
      `${/serving again after [\d.]+ ms/u.exec(log)?.[0]}`);
    for (const s of sockets) s.destroy();
  } finally {
    await srv.stop();
  }
}

// Issue 35: one client polling under new user names (since=0: answered at once) past
// --max-sessions, with the default flags (80,000 sessions): each new session displaces the
// longest-idle one, and a newcomer is served.
await onFreshServer(async (srv) => {
  const n = 100000;
  let statuses;
  const m = await measure(srv, n, async () => {
    statuses = await floodNewUsers(srv, uid('flood'), n, 500);
  });
  const st = await srv.stats();
  row('session displacing the longest-idle one (table full: one client polling under new names)',
    n, m.kib, m.ticks);
  const newcomer = await srv.poll({ user: uid('newcomer'), since: 0 });
  outcomes.push(`one address polling under ${n} new user names, default flags (--max-sessions ` +
    `80000): replies ${JSON.stringify(Object.fromEntries(statuses))}, ${st.sessions.total} sessions ` +
    `held, ${st.expirations.displaced} displaced, ${st.expirations.session_ttl} gone at ` +
    `--first-poll-ttl; a newcomer's poll: ${newcomer.status}`);
}, DEFAULT_TIMEOUTS);

// Issue 35: a first connect (no `since`) owed 100 promotions in force of 60 KB and `rewind`:
// each reply bounded (1 MiB + one message, "more"), the rest fetched from its last_id.
await onFreshServer(async (srv) => {
  const blob = 'x'.repeat(60 * 1000);
  for (let i = 0; i < 100; i++) await srv.publish({ data: { blob, i }, sticky: true });
  for (let i = 0; i < 50; i++) await srv.publish({ data: { i } });
  const sizes = [];
  let seen = 0;
  let repeated = 0;
  const ids = new Set();
  const m = await measure(srv, 1, async () => {
    let since;
    const user = uid('first');
    for (;;) {
      const r = await srv.poll(since === undefined ? { user, rewind: '2m' } : { user, since });
      if (r.status !== 200) throw new Error(`poll: ${r.status} ${r.text}`);
      sizes.push(Buffer.byteLength(r.text));
      for (const msg of r.json.messages) {
        ++seen;
        if (ids.has(msg.id)) ++repeated;
        ids.add(msg.id);
      }
      since = r.json.last_id;
      if (!r.json.more) break;
    }
  });
  row('first-connect poll reply (100 promotions in force of 60 KB + rewind), read at once',
    sizes.length, null, m.ticks);
  outcomes.push(`first-connect poll owed 100 promotions of 60 KB + 50 rewound, default flags: ` +
    `${sizes.length} replies, the largest ${Math.max(...sizes)} bytes; ${seen} messages, ` +
    `${repeated} repeated`);
}, DEFAULT_TIMEOUTS);

// Plain HTTP requests on a keep-alive connection.
await onFreshServer(async (srv) => {
  const m = await measure(srv, 20000, async (n) => {
    const s = await rawConnect(srv);
    let answered = 0;
    onReplies(s, (k) => { answered += k; });
    s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'.repeat(n));
    await waitFor(() => answered >= n, 10000, 'healthz replies', 5);
    s.destroy();
  });
  row('HTTP request (GET /healthz, keep-alive, pipelined)', 20000, null, m.ticks);
});
// ---- The side doors of issue 35, at the default flags (one loop) ----

// The kernel memory of the server's sockets on `port`, in KiB: each one's receive and send queues
// and its forward allocation (ss -tm: r, w, f), which count against the unit's MemoryMax.
function kernelKiB(port) {
  const out = execFileSync('ss', ['-tmnH', `( sport = :${port} )`], { encoding: 'utf8', maxBuffer: 64 << 20 });
  let bytes = 0;
  for (const m of out.matchAll(/skmem:\(([^)]*)\)/gu)) {
    for (const [, k, v] of m[1].matchAll(/(?:^|,)([a-z]+)(\d+)/gu)) if (k === 'r' || k === 'w' || k === 'f') bytes += Number(v);
  }
  return bytes / 1024;
}
const perEach = (kib, n) => Math.max(0, kib / Math.max(1, n)).toFixed(2);

function connectFrom(srv, localAddress) {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: srv.host, port: srv.port, localAddress }, () => resolve(s));
    s.gone = false;
    s.text = '';
    s.on('data', (c) => { s.text += c.toString('latin1'); });
    s.on('close', () => { s.gone = true; });
    s.on('error', (e) => { if (s.connecting) reject(e); });
  });
}

// Whether a client from 127.0.0.2 gets its SSE hello within 3 s.
async function newcomerServed(srv) {
  const s = await connectFrom(srv, '127.0.0.2').catch(() => null);
  if (!s) return false;
  s.write(`GET /sse?user=${uid('newcomer')} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  const ok = await waitFor(() => s.text.includes('event: hello') || s.gone, 3000, 'hello').then(() => s.text.includes('event: hello'), () => false);
  s.destroy();
  return ok;
}

const onDefaultServer = (fn) => onFreshServer(fn, DEFAULT_TIMEOUTS);

// Idle sockets that never send a request: from one address, then from 200.
for (const addresses of [1, 200]) {
  await onDefaultServer(async (srv) => {
    const pid = srv.proc.pid;
    const rss0 = rssKiB(pid);
    const k0 = kernelKiB(srv.port);
    const perAddress = 70;  // 6 over the default --max-connections-per-ip of 64
    const sockets = [];
    for (let a = 0; a < addresses; a++) {
      const from = `127.0.${10 + Math.floor(a / 250)}.${1 + (a % 250)}`;
      const batch = await Promise.all(Array.from({ length: perAddress }, () => connectFrom(srv, from).catch(() => null)));
      sockets.push(...batch.filter(Boolean));
    }
    await sleep(500);
    const kept = sockets.filter((s) => !s.gone).length;
    const kib = rssKiB(pid) - rss0;
    const kernel = kernelKiB(srv.port) - k0;
    const served = await newcomerServed(srv);
    row(`idle TCP connection, no request (${addresses} address${addresses > 1 ? 'es' : ''} x ${perAddress} tried, ${kept} kept)`, kept, kib, null);
    outcomes.push(`${addresses} address(es) x ${perAddress} idle sockets: ${kept} kept open, ` +
      `${sockets.length - kept} closed at accept; kernel ${perEach(kernel, kept)} KiB each; ` +
      `a newcomer from another address ${served ? 'is served' : 'is KEPT OUT'}`);
    for (const s of sockets) s.destroy();
  });
}

// 300 anonymous POSTs announcing 64 KiB to the admin API, none with the token, each holding back
// its body's last byte (main buffered the rest until --handshake-timeout).
await onDefaultServer(async (srv) => {
  const pid = srv.proc.pid;
  const rss0 = rssKiB(pid);
  const k0 = kernelKiB(srv.port);
  const body = 'x'.repeat(64 * 1024);
  const sockets = [];
  for (let a = 0; a < 5; a++) {  // 60 from each of 5 addresses: under the per-address limit
    for (let i = 0; i < 60; i++) {
      const s = await connectFrom(srv, `127.0.20.${a + 1}`);
      s.on('error', () => {});
      s.write(`POST /admin/publish HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
      s.write(body.slice(1));
      sockets.push(s);
    }
  }
  await sleep(1000);
  const answered = sockets.filter((s) => /^HTTP\/1\.1 401/u.test(s.text)).length;
  row('anonymous POST announcing 64 KiB to /admin/publish, body all but sent', 300, rssKiB(pid) - rss0, null);
  outcomes.push(`300 anonymous 64 KiB POSTs: ${answered} answered 401 within 1 s; kernel ${perEach(kernelKiB(srv.port) - k0, 300)} KiB each ` +
    `while their unread bytes linger (at most 2 s)`);
  for (const s of sockets) s.destroy();
});

// WebSockets that never read while 6 MB are broadcast (shared by all): the kernel's send buffer.
await onFreshServer(async (srv) => {
  const pid = srv.proc.pid;
  const n = 20;
  const users = Array.from({ length: n }, () => uid('deaf'));
  const clients = [];
  for (const user of users) {
    const c = await rawWebSocket(srv, { user });
    await c.frames.next((f) => f.opcode === 1);
    c.socket.pause();
    clients.push(c);
  }
  const rss0 = rssKiB(pid);
  const k0 = kernelKiB(srv.port);
  const blob = 'x'.repeat(60000);
  for (let i = 0; i < 100; i++) await srv.publish({ data: { blob } });
  await sleep(1000);
  const kernel = kernelKiB(srv.port) - k0;
  row('WebSocket that never reads, 6 MB broadcast (RSS, the shared messages included; kernel below)', n, rssKiB(pid) - rss0, null);
  outcomes.push(`${n} never-reading WebSockets, 6 MB broadcast: kernel ${perEach(kernel, n)} KiB each (--send-buffer 256 KiB, doubled by the kernel, plus the socket's own)`);
  for (const c of clients) c.socket.destroy();
}, [...DEFAULT_TIMEOUTS, '--write-timeout', '30s']);

console.log('| what | n | memory each | loop time each |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(`| ${r.what} | ${r.n} | ${r.memory} | ${r.loop} |`);
console.log('');
for (const o of outcomes) console.log(`- ${o}`);
