// Measures the rows of the budget table in docs/security.md ("Budget"): for each kind of
// connection and request, the server memory it holds and the loop time it takes, on the real
// binary (one event loop, so the CPU the process spends is the loop's).
//   RINGCAST_BIN=build/server/ringcast node scripts/budget.mjs
// Memory is the growth of the server's RSS divided by the count; loop time is the CPU time of the
// server's threads (schedstat) divided by the count. Small counts keep it under a minute on a laptop.
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  BIN, floodNewUsers, rawConnect, rssKiB, sleep, startServer, uid, waitFor,
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

// Each row on a fresh server, so that memory another row freed is not reused and hidden.
async function onFreshServer(fn, flags = ['--max-connections', '30000', '--session-ttl', '3s']) {
  const srv = await startServer(['--threads', '1', '--write-timeout', '5s', ...flags]);
  try {
    await fn(srv);
  } finally {
    await srv.stop();
  }
}

// Idle WebSockets and SSE streams, held polls: what a connection holds while nothing happens.
await onFreshServer(async (srv) => {
  const m = await measure(srv, 2000, async (n) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push(await srv.wsHello({ user: uid('w') }));
    return out;
  });
  row('WebSocket (idle, hello written)', 2000, m.kib, m.ticks);
});
await onFreshServer(async (srv) => {
  const m = await measure(srv, 2000, async (n) => {
    const out = [];
    for (let i = 0; i < n; i++) out.push(await srv.sseHello({ user: uid('s') }));
    return out;
  });
  row('SSE stream (idle, hello written)', 2000, m.kib, m.ticks);
});
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
console.log('| what | n | memory each | loop time each |');
console.log('|---|---|---|---|');
for (const r of rows) console.log(`| ${r.what} | ${r.n} | ${r.memory} | ${r.loop} |`);
console.log('');
for (const o of outcomes) console.log(`- ${o}`);
