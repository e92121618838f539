// Issue 35, parts 1 and 2, against the built binary with the default flags: one client polling
// under thousands of user names cannot lock a newcomer out of the session table, and a long-poll
// without `since` (promotions in force plus `rewind`) is bounded like every other poll reply, its
// continuation delivering the rest of the backlog exactly once.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { SANITIZER, floodNewUsers, startServer, uid, waitFor } from './harness.mjs';

const MiB = 1024 * 1024;
// The server's own defaults for what harness.mjs shortens (its BASE_FLAGS), so that these tests
// run with the default flags throughout (--drain aside, which only ends the test sooner).
const DEFAULTS = ['--tick-ms', '100', '--session-ttl', '2m', '--poll-timeout', '25s',
  '--heartbeat', '25s', '--idle-timeout', '1m'];

// The default flags: --max-sessions 80,000 (4 x --max-connections), --session-ttl 2m,
// --first-poll-ttl 10s; 85,000 polls take 2-6 s in the plain build. Under a sanitizer's Debug
// build (CI's ASan stage) a tenth of both, so that the stage stays bounded.
const TABLE = SANITIZER === 'none' ? { sessions: 80000, flags: [] }
  : { sessions: 8000, flags: ['--max-sessions', '8000'] };
const FLOOD = TABLE.sessions + TABLE.sessions / 16;

describe('the session table never refuses a newcomer while it holds idle sessions', () => {
  // On main the table filled and everyone new got 503 for --session-ttl.
  test(`one client polling under ${FLOOD} user names (more than --max-sessions): every poll, and a newcomer, is served`, async (t) => {
    const srv = await startServer([...DEFAULTS, ...TABLE.flags]);
    try {
      const started = Date.now();
      const floods = await Promise.all([
        floodNewUsers(srv, `${uid('a')}-`, FLOOD / 2),
        floodNewUsers(srv, `${uid('b')}-`, FLOOD / 2),
      ]);
      const ms = Date.now() - started;
      const s = await srv.stats();
      t.diagnostic(`${FLOOD} polls in ${ms} ms; ${s.sessions.total} sessions held, ` +
        `${s.expirations.displaced} displaced, ${s.expirations.session_ttl} at their TTL`);
      for (const statuses of floods) assert.deepEqual([...statuses.keys()], ['200']);
      assert.ok(s.sessions.total <= TABLE.sessions, `${s.sessions.total} sessions`);
      // A newcomer on every transport.
      assert.equal((await srv.poll({ user: uid('new'), since: 0 })).status, 200);
      const ws = await srv.wsHello({ user: uid('newws') });
      assert.equal(ws.hello.resumed, false);
      const m = await srv.get('/metrics');
      assert.match(m.text, /ringcast_sessions_refused_total\{limit="max_sessions"\} 0/u);
    } finally {
      await srv.stop();
    }
  });

  test('at --max-sessions the longest-idle session of any user makes way, counted as displaced; live ones never do', async () => {
    const srv = await startServer(['--max-sessions', '2000', '--threads', '1', '--first-poll-ttl', '60s']);
    try {
      // Two held polls: live sessions the flood must not take.
      const live = [uid('live'), uid('live')];
      const held = live.map((user) => srv.poll({ user }));
      await srv.statsUntil((s) => s.connections.poll === 2, 3000, 'two held polls');
      const statuses = await floodNewUsers(srv, `${uid('f')}-`, 5000);
      assert.deepEqual([...statuses.keys()], ['200']);
      const s = await srv.stats();
      assert.equal(s.sessions.total, 2000);
      assert.equal(s.connections.poll, 2);
      const m = await srv.get('/metrics');
      const displaced = Number(/ringcast_expirations_total\{reason="displaced"\} (\d+)/u.exec(m.text)?.[1]);
      assert.equal(displaced, 5000 + 2 - 2000);
      for (const user of live) await srv.publish({ user, data: 'still here' });
      for (const r of await Promise.all(held)) {
        assert.equal(r.status, 200);
        assert.equal(r.json.messages[0].data, 'still here');
      }
    } finally {
      await srv.stop();
    }
  });

  test('two event loops: a newcomer whose loop holds only live sessions has the other loop drop its longest-idle one', async () => {
    // 19 held polls (live, spread over both loops by their users' hash) and one idle session
    // fill a table of 20. Each newcomer's poll is answered at once, so it is then the idle one:
    // the next newcomer lands on its loop (displaced there) or on the other (displaced across).
    const srv = await startServer([...DEFAULTS, '--max-sessions', '20', '--threads', '2']);
    try {
      const held = [];
      for (let i = 0; i < 19; i++) held.push(srv.poll({ user: uid('live') }));
      await srv.statsUntil((s) => s.connections.poll === 19, 3000, '19 held polls');
      assert.equal((await srv.poll({ user: uid('idle'), since: 0 })).status, 200);
      for (let i = 0; i < 12; i++) {
        const r = await srv.poll({ user: uid('new'), since: 0 });
        assert.equal(r.status, 200, `newcomer ${i}: ${r.text}`);
        // A displacement across loops is posted: it is done once the table is back at 20.
        await srv.statsUntil((s) => s.sessions.total === 20, 3000, 'the table back at its limit');
      }
      const s = await srv.stats();
      assert.equal(s.expirations.displaced, 12);
      assert.equal(s.connections.poll, 19);
      await srv.publish({ data: 'release' });
      for (const r of await Promise.all(held)) assert.equal(r.json.messages[0].data, 'release');
    } finally {
      await srv.stop();
    }
  });

  test('a table whose sessions are all live refuses a newcomer 503 overloaded with Retry-After', async () => {
    const srv = await startServer(['--max-sessions', '3', '--threads', '1']);
    try {
      const held = [1, 2, 3].map(() => srv.poll({ user: uid('held') }));
      await srv.statsUntil((s) => s.connections.poll === 3, 3000, 'three held polls');
      const r = await srv.poll({ user: uid('late'), since: 0 });
      assert.equal(r.status, 503, r.text);
      assert.equal(r.json.error, 'overloaded');
      assert.ok(Number(r.headers['retry-after']) >= 1);
      const m = await srv.get('/metrics');
      assert.match(m.text, /ringcast_sessions_refused_total\{limit="max_sessions"\} 1/u);
      await srv.publish({ data: 'release' });
      await Promise.all(held);
      // Now idle between two polls, one of them makes way.
      assert.equal((await srv.poll({ user: uid('late'), since: 0 })).status, 200);
    } finally {
      await srv.stop();
    }
  });

  test('a session whose one poll was answered at once lives --first-poll-ttl; one that came back, --session-ttl', async () => {
    const srv = await startServer(['--first-poll-ttl', '1s', '--session-ttl', '4s', '--threads', '1']);
    try {
      const s0 = await srv.stats();
      const once = uid('once');
      const twice = uid('twice');
      assert.equal((await srv.poll({ user: once, since: 0 })).status, 200);
      assert.equal((await srv.poll({ user: twice, since: 0 })).status, 200);
      assert.equal((await srv.poll({ user: twice, since: 0 })).status, 200); // it came back
      await srv.statsUntil((s) => s.sessions.total === s0.sessions.total + 1, 3000, 'the one-poll session gone');
      const s = await srv.stats();
      assert.equal(s.expirations.session_ttl, s0.expirations.session_ttl + 1);
    } finally {
      await srv.stop();
    }
  });
});

describe('a first-connect poll reply is bounded like every other', () => {
  // 100 promotions in force (the default --max-sticky) of 60 KB, then 50 small messages, and a
  // connect without `since` that rewinds 2 minutes: about 6 MB owed. On main one ~60-byte request
  // got all of it in one reply.
  async function setUp() {
    const srv = await startServer(DEFAULTS);
    const blob = 'x'.repeat(60 * 1000);
    const sticky = [];
    const plain = [];
    for (let i = 0; i < 100; i++) sticky.push((await srv.publish({ data: { blob, i }, sticky: true })).id);
    for (let i = 0; i < 50; i++) plain.push((await srv.publish({ data: { i } })).id);
    return { srv, expected: [...sticky, ...plain].sort((a, b) => a - b) };
  }

  test('100 sticky promotions of 60 KB + rewind: replies of at most 1 MiB + one message say more; following them delivers every message once, in id order', async (t) => {
    const { srv, expected } = await setUp();
    try {
      const user = uid('shopper');
      const ids = [];
      const sizes = [];
      let since;
      for (let polls = 0; ; polls++) {
        assert.ok(polls < 50, 'the replies never end');
        const r = await srv.poll(since === undefined ? { user, rewind: '2m' } : { user, since });
        assert.equal(r.status, 200, r.text.slice(0, 200));
        assert.equal(r.json.type, 'messages');
        assert.equal(r.json.gap, false);
        sizes.push(Buffer.byteLength(r.text));
        assert.ok(r.json.messages.length <= 100, `${r.json.messages.length} messages in one reply`);
        assert.ok(sizes.at(-1) <= MiB + 62 * 1000, `a reply of ${sizes.at(-1)} bytes`);
        for (const m of r.json.messages) ids.push(m.id);
        since = r.json.last_id;
        if (!r.json.more) break;
        assert.equal(since, ids.at(-1), 'a reply that says more ends at its last_id');
      }
      t.diagnostic(`${sizes.length} replies: ${sizes.join(', ')} bytes`);
      assert.ok(sizes.length >= 6, `${sizes.length} replies`);
      assert.deepEqual(ids, expected);
    } finally {
      await srv.stop();
    }
  });

  test('ringcast.js on long-poll with rewind follows "more" from the first connect and shows each message once', async () => {
    const { srv, expected } = await setUp();
    await import('../../web/ringcast.js');
    const client = new globalThis.RingcastClient({ url: `${srv.base}/`, user: uid('lib'), transport: 'poll', rewind: '2m' });
    const received = [];
    client.on('message', (m) => received.push(m.id));
    client.connect();
    try {
      await waitFor(() => received.length >= expected.length, 15000, `${expected.length} messages (${received.length})`);
      const late = await srv.publish({ data: 'live' });
      await waitFor(() => received.includes(late.id), 5000, 'a live message after the backlog');
      assert.deepEqual(received, [...expected, late.id]);
    } finally {
      client.close();
      await srv.stop();
    }
  });
});
