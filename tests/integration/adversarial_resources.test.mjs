// What an anonymous client can make the server hold (issue 25, parts 1-3; docs/security.md,
// "Budget"): replies it does not read (--write-timeout), resume polls over a large history
// (--max-poll-batch, 1 MiB a reply, "more"), and sessions (--max-sessions-per-user;
// --max-sessions: adversarial_sessions.test.mjs). Bounds from the contract, measured on the real binary.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  EARLY_MARGIN_MS, assertServes, latestMs, rawConnect, rssKiB, sleep, startServer, uid, untilCpuQuiet,
  waitFor,
} from './harness.mjs';

const MiB = 1024 * 1024;
const ONE_REPLY = 1 * MiB; // a poll reply stops adding messages once its body passed this

// Under AddressSanitizer freed memory waits in a quarantine that would swamp the RSS bound.
const smallQuarantine = {
  ASAN_OPTIONS: [process.env.ASAN_OPTIONS, 'quarantine_size_mb=4'].filter(Boolean).join(':'),
};

function pollRequest(params) {
  const q = Object.entries(params).map(([k, v]) => `${k}=${v}`).join('&');
  return `GET /poll?${q} HTTP/1.1\r\nHost: x\r\n\r\n`;
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

// Follows a resume as ringcast.js does: poll from `since`, and again at once from the reply's
// last_id while it says "more". Returns every reply.
async function resumeAll(srv, user, since) {
  const replies = [];
  for (;;) {
    const r = await srv.poll({ user, since });
    assert.equal(r.status, 200, r.text.slice(0, 200));
    assert.equal(r.json.type, 'messages', r.text.slice(0, 200));
    replies.push({ json: r.json, bytes: Buffer.byteLength(r.text) });
    since = r.json.last_id;
    if (!r.json.more) return replies;
  }
}

describe('bounded replies and a deadline on every write', () => {
  let srv;
  const bigIds = [];
  const smallIds = [];
  let biggest = 0; // the largest message's envelope, in bytes
  before(async () => {
    srv = await startServer(['--threads', '2', '--write-timeout', '2s', '--history', '1000'],
      { env: smallQuarantine });
    // 250 small messages, then 200 of 60 KB: 12 MB of history.
    for (let i = 0; i < 250; i++) smallIds.push((await srv.publish({ data: { i } })).id);
    const blob = 'x'.repeat(60 * 1000);
    for (let i = 0; i < 200; i++) bigIds.push((await srv.publish({ data: { i, blob } })).id);
    biggest = Buffer.byteLength(JSON.stringify({ blob })) + 200;
  });
  after(async () => { await srv?.stop(); });

  test('a client that reads gets replies of at most --max-poll-batch messages and 1 MiB + one, and "more" loses and repeats nothing', async (t) => {
    const user = uid('reader');
    const replies = await resumeAll(srv, user, smallIds[0] - 1);
    const ids = replies.flatMap((r) => r.json.messages.map((m) => m.id));
    assert.deepEqual(ids, [...smallIds, ...bigIds], 'every message once, in order');
    for (const [i, r] of replies.entries()) {
      assert.ok(r.json.messages.length <= 100, `reply ${i}: ${r.json.messages.length} messages`);
      assert.ok(r.bytes <= ONE_REPLY + biggest, `reply ${i}: ${r.bytes} bytes`);
      const last = i === replies.length - 1;
      assert.equal(r.json.more === true, !last, `reply ${i}: more=${r.json.more}`);
      if (!last) assert.equal(r.json.last_id, r.json.messages.at(-1).id, `reply ${i}: last_id`);
    }
    // 250 small ones in 100s, then the 60 KB ones about 17 a reply.
    assert.deepEqual(replies.slice(0, 3).map((r) => r.json.messages.length).slice(0, 2), [100, 100]);
    t.diagnostic(`${replies.length} replies, the largest ${Math.max(...replies.map((r) => r.bytes))} bytes`);
  });

  test('20 clients that pipeline resume polls and never read add < 32 MiB and are closed within --write-timeout + a tick', async (t) => {
    const pid = srv.proc.pid;
    const s0 = await srv.stats();
    const rss0 = rssKiB(pid);
    let peak = rss0;
    const sockets = [];
    const since = bigIds[0] - 1; // each reply: 1 MiB of the 60 KB messages
    for (let c = 0; c < 20; c++) {
      const s = await rawConnect(srv);
      s.on('error', () => {});
      s.pause(); // never reads
      // 30 pipelined polls: about 30 MiB owed to each, far more than its socket buffers hold.
      s.write(Array.from({ length: 30 }, () => pollRequest({ user: uid('hog'), since })).join(''));
      sockets.push(s);
    }
    // The server writes what the sockets take (several MiB each on loopback), then every write
    // waits: the moment the server stops using CPU (/proc/PID/stat) for 150 ms.
    const quiet = await untilCpuQuiet(pid, { peakKiB: peak });
    peak = quiet.peakKiB;
    const blockedAt = quiet.quietSince;
    await waitFor(async () => {
      peak = Math.max(peak, rssKiB(pid));
      const s = await srv.stats();
      return s.expirations.write_timeout - s0.expirations.write_timeout >= 20 ? s : null;
    }, 15000, 'every hog closed at --write-timeout', 20);
    const dt = Date.now() - blockedAt;
    const grown = peak - rss0;
    t.diagnostic(`closed ${dt} ms after the writes stopped; RSS ${rss0} KiB, peak ${peak} KiB (+${grown} KiB)`);
    assert.ok(grown < 32 * 1024, `server RSS grew by ${grown} KiB`);
    // Read every 20 ms (the stats); CPU time is counted in 10 ms ticks.
    assert.ok(dt >= 2000 - 150 - EARLY_MARGIN_MS, `closed ${dt} ms after the writes stopped: early`);
    assert.ok(dt <= latestMs(srv, 2000, 40), `closed ${dt} ms after the writes stopped: late`);
    // Closing the socket ends the write at once; the connection is gone when its handler has run.
    // (The earlier test's last connections may still have been counted in s0.)
    await srv.statsUntil((s) => s.connections.total <= s0.connections.total, 500, 'hogs closed');
    for (const s of sockets) s.destroy();
    await assertServes(srv);
  });
});

describe('sessions: bounded, and cheap to drop', () => {
  test('pipelined polls of one user with new sids leave at most 16 sessions; /healthz answers within 100 ms while they expire', async (t) => {
    const srv = await startServer(['--threads', '2', '--session-ttl', '3s']);
    try {
      const user = uid('many');
      const s0 = await srv.stats();
      // Two keep-alive connections, each keeping 200 polls in flight with a new sid each (since=0
      // is answered at once), for about 15 s.
      let sid = 0;
      let answered = 0;
      const flood = async () => {
        const s = await rawConnect(srv);
        let pending = 0;
        let wake = null;
        onReplies(s, (n) => {
          pending -= n;
          answered += n;
          if (wake && pending < 100) { const w = wake; wake = null; w(); }
        });
        const until = Date.now() + 15000;
        while (Date.now() < until) {
          const batch = [];
          for (let i = 0; i < 200; i++) batch.push(pollRequest({ user, sid: `s${sid++}`, since: 0 }));
          pending += 200;
          s.write(batch.join(''));
          if (pending >= 100) await new Promise((r) => { wake = r; setTimeout(r, 1000); });
        }
        await waitFor(() => pending <= 0, 5000, 'the last replies');
        s.destroy();
      };
      await Promise.all([flood(), flood()]);
      const s1 = await srv.stats();
      t.diagnostic(`${answered} pipelined polls answered (${sid} sent), ${s1.sessions.total} sessions left`);
      assert.ok(answered >= 10000, `only ${answered} polls answered`);
      assert.ok(s1.sessions.total - s0.sessions.total <= 16, `${s1.sessions.total} sessions`);
      assert.ok(s1.expirations.displaced > 0, 'no session displaced');
      // The TTL runs out: /healthz keeps answering at once.
      const until = Date.now() + 3000 + 1500;
      let worst = 0;
      while (Date.now() < until) {
        const started = Date.now();
        const r = await srv.get('/healthz', { timeoutMs: 5000 });
        assert.equal(r.status, 200);
        worst = Math.max(worst, Date.now() - started);
        await sleep(50);
      }
      const s2 = await srv.stats();
      t.diagnostic(`slowest /healthz while the sessions expired: ${worst} ms`);
      assert.ok(worst <= 100, `/healthz took ${worst} ms`);
      assert.equal(s2.sessions.total, s0.sessions.total, 'the sessions expired');
    } finally {
      await srv.stop();
    }
  });

  test('a user whose --max-sessions-per-user sessions are all live gets 429 too_many with Retry-After', async () => {
    const srv = await startServer(['--max-sessions-per-user', '2', '--reconnect-delay', '2s']);
    try {
      const user = uid('full');
      const held = [srv.poll({ user, sid: 'a' }), srv.poll({ user, sid: 'b' })];
      await srv.statsUntil((s) => s.connections.poll === 2, 3000, 'two held polls');
      const r = await srv.poll({ user, sid: 'c', since: 0 });
      assert.equal(r.status, 429, r.text);
      assert.equal(r.json.error, 'too_many');
      assert.equal(r.headers['retry-after'], '2');
      const ws = await srv.wsRefused({ user, sid: 'd' });
      assert.equal(ws.status, 429);
      // Another user, and an existing session of this one, are served.
      assert.equal((await srv.poll({ user: uid('other'), since: 0 })).status, 200);
      const s = await srv.stats();
      assert.equal(s.sessions.refused.max_sessions_per_user, 2);
      await srv.publish({ user, data: 'release' });
      for (const h of await Promise.all(held)) assert.equal(h.status, 200);
      // Now idle, the oldest of them makes way.
      assert.equal((await srv.poll({ user, sid: 'c', since: 0 })).status, 200);
    } finally {
      await srv.stop();
    }
  });
});
