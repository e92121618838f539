// docs/protocol.md, "Paced publish": a publish with "spread" reaches each session at its own turn,
// published + offset(hash(session key, id)), over WebSocket, SSE and long-poll; a session that
// reconnects keeps its turn; one away during its turn gets it on resume, exactly once.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { arrivedAt, sleep, startServer, uid, SCHEDULING_ALLOWANCE_MS } from './harness.mjs';
import { offsetMs } from './pacing_offset.mjs';

const TICK_MS = 50;
let srv;
before(async () => {
  srv = await startServer(['--tick-ms', String(TICK_MS), '--max-spread', '20s', '--poll-timeout', '20s',
    '--max-connections-per-ip', '0']);
});
after(async () => { await srv?.stop(); });

// How late a turn may be seen here: a tick, the scheduling allowance, and this process's own lag
// with a couple of thousand sockets.
const LATE_MS = TICK_MS + SCHEDULING_ALLOWANCE_MS + 150;

async function inBatches(n, make, size = 100) {
  const out = [];
  for (let i = 0; i < n; i += size) {
    out.push(...await Promise.all(Array.from({ length: Math.min(size, n - i) }, (_, k) => make(i + k))));
  }
  return out;
}

test('2,000 clients over WebSocket, SSE and long-poll, spread 5s: each at its turn, no 0.5 s bin above 1.5x the mean', async () => {
  const spreadMs = 5000;
  const tag = uid('pace');
  const ws = await inBatches(667, (i) => srv.wsHello({ user: `${tag}w${i}` }));
  const sse = await inBatches(667, (i) => srv.sseHello({ user: `${tag}s${i}` }));
  const since = ws[0].hello.last_id;
  const polls = Array.from({ length: 666 }, (_, i) => {
    const user = `${tag}p${i}`;
    return srv.poll({ user, since }).then((r) => ({ user, r, at: Date.now() }));
  });
  await srv.statsUntil((s) => s.connections.poll >= 666, 10000, '666 held polls');

  const t0 = Date.now();
  const pub = await srv.publish({ data: { promo: 1 }, spread: '5s' });
  assert.equal(pub.recipients, 2000);
  const metrics = await srv.get('/metrics');
  assert.match(metrics.text, /^ringcast_paced_in_flight 1$/m);
  await sleep(2500);
  const half = await srv.admin('GET', `/admin/messages/${pub.id}`);
  assert.equal(half.json.spread, '5s');
  assert.ok(half.json.delivered > 500 && half.json.delivered < 1500, `delivered halfway: ${half.text}`);

  const arrivals = [];
  const check = (user, at, envelope) => {
    assert.equal(envelope.id, pub.id);
    assert.equal(envelope.spread_ms, spreadMs);
    const turn = offsetMs(user, pub.id, spreadMs);
    assert.ok(at - t0 >= turn - 1, `${user} got it ${at - t0} ms after publish, before its turn ${turn}`);
    assert.ok(at - t0 <= turn + LATE_MS, `${user} got it ${at - t0} ms after publish, turn ${turn}`);
    arrivals.push(at - t0);
  };
  for (const [i, c] of ws.entries()) {
    const m = await c.next('message', spreadMs + 2000);
    check(`${tag}w${i}`, arrivedAt(m), m);
  }
  for (const [i, c] of sse.entries()) {
    const e = await c.next('message', spreadMs + 2000);
    check(`${tag}s${i}`, arrivedAt(e), e.json);
  }
  for (const { user, r, at } of await Promise.all(polls)) {
    assert.equal(r.status, 200);
    assert.equal(r.json.messages.length, 1, r.text);
    assert.ok(r.json.last_id >= pub.id);
    check(user, at, r.json.messages[0]);
  }
  assert.ok(Math.max(...arrivals) <= spreadMs + TICK_MS + LATE_MS);
  const bins = new Array(10).fill(0);
  for (const a of arrivals) bins[Math.min(9, Math.floor(a / 500))] += 1;
  const mean = arrivals.length / bins.length;
  assert.ok(Math.max(...bins) <= 1.5 * mean, `per 0.5 s: ${bins}`);

  const done = await srv.admin('GET', `/admin/messages/${pub.id}`);
  assert.equal(done.json.delivered, 2000);
  // The gauge counts a message until its window has passed (the last turn may come before that).
  await sleep(Math.max(0, t0 + spreadMs + TICK_MS + LATE_MS - Date.now()));
  assert.match((await srv.get('/metrics')).text, /^ringcast_paced_in_flight 0$/m);
  await Promise.all([...ws, ...sse].map((c) => c.none('message', 200)));
  srv.closeClients();
});

test('a client that reconnects during the window gets it once, at its turn', async () => {
  const spreadMs = 3000;
  const users = Array.from({ length: 40 }, () => uid('re'));
  const first = await Promise.all(users.map((user) => srv.wsHello({ user })));
  const t0 = Date.now();
  const pub = await srv.publish({ data: 'r', spread: '3s' });
  await sleep(300);
  const late = users.filter((u) => offsetMs(u, pub.id, spreadMs) > 1000);
  assert.ok(late.length > 10, 'enough clients with a turn after the reconnect');
  for (const u of late) {
    const c = first[users.indexOf(u)];
    assert.deepEqual(c.ids(), [], `${u} got it before its turn`);
    await c.close();
  }
  await sleep(300);
  const again = await Promise.all(late.map((user, i) => (i % 2
    ? srv.wsHello({ user, since: first[0].hello.last_id })
    : srv.sseHello({ user }, { 'Last-Event-ID': String(first[0].hello.last_id) }))));
  for (const [i, c] of again.entries()) {
    const m = await c.next('message', spreadMs + 1000);
    const at = arrivedAt(m) - t0;
    const turn = offsetMs(late[i], pub.id, spreadMs);
    assert.equal((m.json ?? m).id, pub.id);
    assert.ok(at >= turn - 1 && at <= turn + LATE_MS, `${late[i]}: at ${at} ms, turn ${turn}`);
  }
  await Promise.all(again.map((c) => c.none('message', 300)));
  srv.closeClients();
});

// Away during its turn while a later (higher-id) message arrives; it resumes from that higher id.
test('disconnect before the turn, resume after it: every message exactly once (WebSocket, SSE with Last-Event-ID, long-poll)', async () => {
  const spreadMs = 2000;
  const n = 12;
  const users = { ws: [], sse: [], poll: [] };
  const got = new Map(); // user -> ids received
  const note = (user, ids) => got.set(user, [...(got.get(user) ?? []), ...ids]);
  const wsClients = [];
  const sseClients = [];
  for (let i = 0; i < n; i++) {
    users.ws.push(uid('dw'));
    users.sse.push(uid('ds'));
    users.poll.push(uid('dp'));
  }
  for (const user of users.ws) wsClients.push(await srv.wsHello({ user }));
  for (const user of users.sse) sseClients.push(await srv.sseHello({ user }));
  const since = wsClients[0].hello.last_id;
  const polls = users.poll.map((user) => srv.poll({ user, since }));
  await srv.statsUntil((s) => s.connections.poll >= n, 5000, 'held polls');

  const paced = await srv.publish({ data: 'p', spread: '2s' });
  const later = await srv.publish({ data: 'l' });
  // Each takes what came before it goes away (the later message, and the paced one if its turn
  // was at once), then leaves.
  const lastEventId = new Map();
  for (const [i, c] of wsClients.entries()) {
    await c.next((m) => m.type === 'message' && m.id === later.id, 2000);
    note(users.ws[i], c.ids());
    await c.close();
  }
  for (const [i, c] of sseClients.entries()) {
    await c.next((e) => e.json?.id === later.id, 2000);
    const events = c.events.items.filter((e) => e.event === 'message');
    note(users.sse[i], events.map((e) => e.json.id));
    lastEventId.set(users.sse[i], events.filter((e) => e.id !== undefined).map((e) => Number(e.id)).pop());
    c.req.destroy();
  }
  const pollSince = new Map();
  for (const [i, r] of (await Promise.all(polls)).entries()) {
    note(users.poll[i], r.json.messages.map((m) => m.id));
    pollSince.set(users.poll[i], r.json.last_id);
  }
  await sleep(spreadMs + 300);

  for (const user of users.ws) {
    const c = await srv.wsHello({ user, since: later.id });
    await sleep(300);
    note(user, c.ids());
  }
  for (const user of users.sse) {
    assert.equal(lastEventId.get(user), later.id, 'Last-Event-ID stays at the highest id');
    const c = await srv.sseHello({ user }, { 'Last-Event-ID': String(later.id) });
    await sleep(300);
    const events = c.events.items.filter((e) => e.event === 'message');
    for (const e of events) assert.equal(e.id, undefined, 'a paced message below Last-Event-ID has no id: line');
    note(user, events.map((e) => e.json.id));
  }
  for (const user of users.poll) {
    let s = pollSince.get(user);
    assert.equal(s, later.id, 'a long-poll resumes from the highest id');
    if ((got.get(user) ?? []).length < 2) {
      const r = await srv.poll({ user, since: s });
      note(user, r.json.messages.map((m) => m.id));
      assert.ok(r.json.last_id >= later.id);
    }
  }
  for (const user of [...users.ws, ...users.sse, ...users.poll]) {
    assert.deepEqual([...got.get(user)].sort(), [paced.id, later.id].sort(), `${user}: ${got.get(user)}`);
  }
  srv.closeClients();
});

test('a bad spread is refused 400 and nothing is published', async () => {
  const before = (await srv.stats()).messages.published;
  for (const [spread, message] of [
    ['-5s', /^spread: expected a duration/],
    ['soon', /^spread: expected a duration/],
    [30, /^spread: a duration string/],
    ['21s', /^spread: at most 20s \(--max-spread\)$/],
  ]) {
    const r = await srv.admin('POST', '/admin/publish', { body: { data: 1, spread } });
    assert.equal(r.status, 400, `${spread}: ${r.text}`);
    assert.equal(r.json.error, 'bad_request');
    assert.match(r.json.message, message);
  }
  assert.equal((await srv.stats()).messages.published, before);
});
