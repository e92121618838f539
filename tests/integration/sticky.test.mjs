// docs/protocol.md, "Promotions in force" and "Rewind": a sticky publish is sent first to every
// client that connects without `since` (WebSocket, SSE without Last-Event-ID, long-poll) while it
// is in force; DELETE /admin/messages/<id> takes a message down at once; rewind=N|DURATION.
// Sticky messages here address the test's own users, so that one test's promotions in force do
// not reach another's connects.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { startServer, uid, sleep, query, EARLY_MARGIN_MS } from './harness.mjs';

let srv;
before(async () => { srv = await startServer(['--session-ttl', '5s', '--poll-timeout', '2s']); });
after(async () => { await srv?.stop(); });

function assertError(r, status, code, what) {
  assert.equal(r.status, status, `${what}: ${r.status} ${r.text}`);
  assert.equal(r.json?.error, code, `${what}: ${r.text}`);
  assert.equal(typeof r.json.message, 'string', `${what}: ${r.text}`);
}

const ids = (messages) => messages.map((m) => m.id);

test('sticky: a connect without since gets those in force addressed to it, on every transport, then live', async () => {
  const [user, other] = [uid('st'), uid('so')];
  const plain = await srv.publish({ user, data: 'not sticky' });
  const sale = await srv.publish({ users: [user, other], data: { sale: 'flash' }, ttl: '2h', sticky: true });
  const mine = await srv.publish({ user, data: 'yours', sticky: true });
  const theirs = await srv.publish({ user: other, data: 'theirs', sticky: true });
  const reach = await srv.admin('GET', `/admin/messages/${sale.id}`);
  assert.equal(reach.json.sticky, true, reach.text);

  const ws = await srv.wsHello({ user, sid: 'w' });
  assert.equal(ws.hello.gap, false);
  const first = await ws.next('message');
  assert.deepEqual([first.id, first.data], [sale.id, { sale: 'flash' }]);
  assert.ok(first.expires > Date.now() + 3600_000, 'with its countdown');
  assert.equal((await ws.next('message')).id, mine.id);
  await ws.none('message', 200);

  const sse = await srv.sseHello({ user, sid: 's' });
  const e1 = await sse.next('message');
  const e2 = await sse.next('message');
  assert.deepEqual([e1.json.id, e2.json.id], [sale.id, mine.id]);
  assert.equal(e2.id, String(mine.id), 'id: lines as for any message');

  const polled = await srv.poll({ user, sid: 'p' });
  assert.deepEqual(ids(polled.json.messages), [sale.id, mine.id]);
  const theirPoll = await srv.poll({ user: other, sid: 'p' });
  assert.deepEqual(ids(theirPoll.json.messages), [sale.id, theirs.id]);

  // With since (or Last-Event-ID) it is a resume, as always: no sticky set.
  const resumed = await srv.poll({ user, sid: 'r', since: mine.id });
  assert.equal(resumed.status, 200);
  assert.equal(resumed.json.type, 'reconnect', 'held, then timed out: nothing owed');
  const resumedSse = await srv.sseHello({ user, sid: 'r2' }, { 'Last-Event-ID': String(plain.id) });
  assert.deepEqual([(await resumedSse.next('message')).json.id, (await resumedSse.next('message')).json.id],
    [sale.id, mine.id]);

  const live = await srv.publish({ user, data: 'live' });
  assert.equal((await ws.next('message')).id, live.id);
});

// The raw text of an SSE stream for `ms` milliseconds.
function sseText(params, ms) {
  return new Promise((resolve, reject) => {
    let text = '';
    const req = http.get({ host: srv.host, port: srv.port, path: `/sse${query(params)}`, agent: false }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c) => { text += c; });
      setTimeout(() => { req.destroy(); resolve(text); }, ms);
    });
    req.on('error', reject);
  });
}

test('sticky over SSE: after them an id: line alone moves Last-Event-ID to hello\'s last_id', async () => {
  const user = uid('sid');
  const r = await srv.publish({ user, data: 'in force', sticky: true });
  const last = await srv.publish({ user: uid('someone'), data: 'newer, not for this user' });
  const text = await sseText({ user }, 300);
  const at = text.indexOf(`id: ${r.id}\nevent: message\n`);
  assert.ok(at > 0, text);
  // A browser's EventSource that reconnects by itself resumes from last_id, not from the sticky
  // message's older id (which would replay history it never had).
  assert.ok(text.indexOf(`\nid: ${last.id}\n\n`, at) > at, text);
});

test('sticky: one whose ttl passed between publish and connect is not sent; those who had it are told', async () => {
  const user = uid('sttl');
  const r = await srv.publish({ user, data: 'short', ttl: '600ms', sticky: true });
  const early = await srv.wsHello({ user, sid: 'early' });
  const m = await early.next('message');
  assert.equal(m.id, r.id);
  const expired = await early.next('expired', 3000);
  assert.equal(expired.id, r.id);
  assert.ok(Date.now() >= m.expires - EARLY_MARGIN_MS);
  const late = await srv.wsHello({ user, sid: 'late' });
  await late.none('message', 200);
  const poll = await srv.poll({ user, sid: 'late-poll', since: undefined }, { timeoutMs: 5000 });
  assert.equal(poll.json.type, 'reconnect', `nothing in force: held until --poll-timeout (${poll.text})`);
});

test('sticky: a scheduled one is in force once it goes out; a paced one reaches a late connect', async () => {
  const user = uid('ssch');
  const r = await srv.admin('POST', '/admin/publish', { body: { user, data: 'later', delay: '300ms', sticky: true } });
  assert.equal(r.status, 202, r.text);
  const early = await srv.poll({ user, sid: 'early' }, { timeoutMs: 5000 });
  assert.equal(early.json.type, 'messages', early.text);  // held, answered when it goes out
  const id = early.json.messages[0].id;
  const late = await srv.wsHello({ user, sid: 'late' });
  assert.equal((await late.next('message')).id, id);
  // Paced over 300 ms: once the window has passed, every new session's turn has come.
  const paced = await srv.publish({ user, data: 'paced', spread: '300ms', sticky: true });
  await sleep(500);
  const after = await srv.poll({ user, sid: 'after-window' });
  assert.deepEqual(ids(after.json.messages), [id, paced.id]);
});

test('sticky: in force even once --history has evicted it', async () => {
  const small = await startServer(['--history', '3']);
  try {
    const user = uid('sh');
    const r = await small.publish({ user, data: 'kept', sticky: true });
    for (let i = 0; i < 5; i++) await small.publish({ data: i });
    assert.equal((await small.admin('GET', `/admin/messages/${r.id}`)).status, 404, 'out of history');
    const ws = await small.wsHello({ user });
    assert.equal((await ws.next('message')).id, r.id);
  } finally {
    await small.stop();
  }
});

test('--max-sticky: beyond it a sticky publish gets 429 too_many; a take-down or a ttl makes room', async () => {
  const small = await startServer(['--max-sticky', '2']);
  try {
    const a = await small.publish({ data: 'a', sticky: true });
    await small.publish({ data: 'b', sticky: true, ttl: '500ms' });
    const s0 = await small.stats();
    const refused = await small.admin('POST', '/admin/publish', { body: { data: 'c', sticky: true } });
    assertError(refused, 429, 'too_many', 'third sticky');
    const s1 = await small.stats();
    assert.equal(s1.messages.published, s0.messages.published, 'nothing published');
    assert.equal(s1.messages.sticky_refused, 1);
    assert.equal(s1.messages.sticky_in_force, 2);
    await small.publish({ data: 'not sticky' });  // the limit is on sticky ones only
    await sleep(700);  // b's ttl passes
    await small.publish({ data: 'c', sticky: true });
    assertError(await small.admin('POST', '/admin/publish', { body: { data: 'd', sticky: true } }),
      429, 'too_many', 'full again');
    assert.equal((await small.admin('DELETE', `/admin/messages/${a.id}`)).status, 200);
    await small.publish({ data: 'd', sticky: true });
    const metrics = await small.get('/metrics');
    assert.match(metrics.text, /^ringcast_sticky_in_force 2$/mu);
    assert.match(metrics.text, /^ringcast_sticky_refused_total 2$/mu);
  } finally {
    await small.stop();
  }
});

test('DELETE /admin/messages/<id>: expired at once for live clients, resume, sticky and poll; 404 after', async () => {
  const user = uid('td');
  const ws = await srv.wsHello({ user, sid: 'w' });
  const sse = await srv.sseHello({ user, sid: 's' });
  const before = await srv.publish({ user, data: 'before' });
  const r = await srv.publish({ user, data: { sale: 'wrong price' }, ttl: '1h', sticky: true });
  assert.equal((await ws.next('message')).id, before.id);
  assert.equal((await ws.next('message')).id, r.id);
  await sse.next((e) => e.event === 'message' && e.json.id === r.id);
  const held = srv.poll({ user, sid: 'p', since: r.id });
  await srv.statsUntil((s) => s.connections.poll >= 1);

  assertError(await srv.admin('DELETE', `/admin/messages/${r.id}`, { token: null }), 401, 'unauthorized', 'no token');
  const down = await srv.admin('DELETE', `/admin/messages/${r.id}`);
  assert.equal(down.status, 200, down.text);
  assert.deepEqual(down.json, { taken_down: true });
  assert.equal((await ws.next('expired', 1000)).id, r.id);
  const sseExpired = await sse.next('expired', 1000);
  assert.equal(sseExpired.json.id, r.id);
  assert.deepEqual((await held).json.messages.map((x) => [x.type, x.id]), [['expired', r.id]]);

  assertError(await srv.admin('DELETE', `/admin/messages/${r.id}`), 404, 'not_found', 'again');
  assertError(await srv.admin('DELETE', '/admin/messages/12345'), 404, 'not_found', 'unknown');
  assertError(await srv.admin('DELETE', '/admin/messages/abc'), 400, 'bad_request', 'not an id');
  const reach = await srv.admin('GET', `/admin/messages/${r.id}`);
  assert.equal(reach.json.expired, true, reach.text);
  // Never sent again: not to a new connect, not on resume.
  const fresh = await srv.wsHello({ user, sid: 'fresh' });
  await fresh.none('message', 200);
  const resumed = await srv.poll({ user, sid: 'q', since: before.id - 1 });
  assert.deepEqual(ids(resumed.json.messages), [before.id]);
  assert.equal(resumed.json.gap, false);
  const stats = await srv.stats();
  assert.ok(stats.messages.taken_down >= 1);
});

test('DELETE /admin/messages/<id> of a message whose ttl passed: 404', async () => {
  const r = await srv.publish({ user: uid('tdx'), data: 1, ttl: '200ms' });
  await sleep(400);
  assertError(await srv.admin('DELETE', `/admin/messages/${r.id}`), 404, 'not_found', 'expired');
});

test('rewind=N: the last N messages addressed to the client, then live, on every transport', async () => {
  const [user, other] = [uid('rw'), uid('ro')];
  const sent = [];
  for (let i = 0; i < 4; i++) {
    sent.push((await srv.publish({ user, data: i })).id);
    await srv.publish({ user: other, data: 'not yours' });
  }
  const ws = await srv.wsHello({ user, sid: 'w', rewind: 2 });
  assert.deepEqual([(await ws.next('message')).id, (await ws.next('message')).id], sent.slice(2));
  await ws.none('message', 200);
  const sse = await srv.sseHello({ user, sid: 's', rewind: 3 });
  const got = [];
  for (let i = 0; i < 3; i++) got.push((await sse.next('message')).json.id);
  assert.deepEqual(got, sent.slice(1));
  const poll = await srv.poll({ user, sid: 'p', rewind: 100 });
  assert.deepEqual(ids(poll.json.messages), sent);
  // With since, rewind is ignored: resume wins.
  const resumed = await srv.poll({ user, sid: 'q', since: sent[2], rewind: 100 });
  assert.deepEqual(ids(resumed.json.messages), [sent[3]]);
  const live = await srv.publish({ user, data: 'live' });
  assert.equal((await ws.next('message')).id, live.id);
});

test('rewind=DURATION: those of the last DURATION; at most --session-ttl', async () => {
  const user = uid('rd');
  const old = await srv.publish({ user, data: 'old' });
  await sleep(1200);
  const recent = await srv.publish({ user, data: 'recent' });
  const ws = await srv.wsHello({ user, sid: 'w', rewind: '1s' });
  assert.equal((await ws.next('message')).id, recent.id);
  await ws.none('message', 200);
  const poll = await srv.poll({ user, sid: 'p', rewind: '5s' });
  assert.deepEqual(ids(poll.json.messages), [old.id, recent.id]);
  assertError(await srv.poll({ user, rewind: '6s' }), 400, 'bad_request', 'over --session-ttl');
});

test('rewind: any other value is 400 on every transport', async () => {
  for (const bad of ['0', '101', '', '-1', 'soon', '0s', '1.5', '2 m']) {
    assertError(await srv.poll({ user: uid('rb'), rewind: bad }), 400, 'bad_request', `poll rewind=${bad}`);
    const sse = await srv.sse({ user: uid('rb'), rewind: bad });
    assert.equal(sse.status, 400, `sse rewind=${bad}`);
    const ws = await srv.wsRefused({ user: uid('rb'), rewind: bad });
    assert.equal(ws.status, 400, `ws rewind=${bad}`);
  }
});
