// docs/protocol.md, "Promotions": a list of users as the audience, scheduled publish (at/delay,
// list, cancel, limit), expiry (ttl, the expired notice on every transport) and reach.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, uid, sleep, waitFor, latestMs, EARLY_MARGIN_MS } from './harness.mjs';

let srv;
before(async () => { srv = await startServer(['--max-scheduled', '3']); });
after(async () => { await srv?.stop(); });

function assertError(r, status, code, what) {
  assert.equal(r.status, status, `${what}: ${r.status} ${r.text}`);
  assert.equal(r.json?.error, code, `${what}: ${r.text}`);
  assert.equal(typeof r.json.message, 'string', `${what}: ${r.text}`);
}

const post = (body) => srv.admin('POST', '/admin/publish', { body });
const scheduled = async () => {
  const r = await srv.admin('GET', '/admin/scheduled');
  assert.equal(r.status, 200, r.text);
  return r.json.scheduled;
};

test('users: one publish, one id, once to each listed user\'s sessions', async () => {
  const [a, b, c] = [uid('la'), uid('lb'), uid('lc')];
  const a1 = await srv.wsHello({ user: a, sid: '1' });
  const a2 = await srv.sseHello({ user: a, sid: '2' });
  const b1 = await srv.wsHello({ user: b });
  const c1 = await srv.wsHello({ user: c });
  const r = await srv.publish({ users: [a, b, a, uid('absent')], data: 'loyal' });
  assert.equal(r.recipients, 3);
  for (const client of [a1, b1]) {
    const m = await client.next('message');
    assert.deepEqual([m.id, m.channel, m.data], [r.id, 'users', 'loyal']);
  }
  assert.equal((await a2.next('message')).json.id, r.id);
  await c1.none('message', srv.quietMs);
  await a1.none('message', 100);  // once, though listed twice
  // A resume returns it to listed users only.
  const back = await srv.poll({ user: b, sid: 'later', since: r.id - 1 });
  assert.deepEqual(back.json.messages.map((m) => m.id), [r.id]);
  const other = await srv.wsHello({ user: c, sid: 'later', since: r.id - 1 });
  await other.none('message', 200);
});

test('users: bad lists and mixed audiences are refused and change nothing', async () => {
  const s0 = await srv.stats();
  const many = Array.from({ length: 1001 }, (_, i) => `u${i}`);
  for (const body of [{ users: [], data: 1 }, { users: many, data: 1 }, { users: ['a b'], data: 1 },
    { users: ['a'], user: 'b', data: 1 }, { users: ['a'], channel: 'c', data: 1 }]) {
    assertError(await post(body), 400, 'bad_request', JSON.stringify(body).slice(0, 80));
  }
  const s1 = await srv.stats();
  assert.equal(s1.messages.published, s0.messages.published);
});

test('delay: 202, listed, published at its time (never early), then gone from the list', async () => {
  const user = uid('sched');
  const c = await srv.wsHello({ user });
  const before = Date.now();
  const r = await post({ user, data: { sale: 'flash' }, delay: '700ms' });
  assert.equal(r.status, 202, r.text);
  assert.equal(typeof r.json.scheduled, 'string');
  assert.ok(r.json.at >= before + 700 && r.json.at <= Date.now() + 700, r.text);
  const listed = (await scheduled()).find((s) => s.scheduled === r.json.scheduled);
  assert.ok(listed, 'not listed');
  assert.equal(listed.at, r.json.at);
  assert.deepEqual(listed.request, { user, data: { sale: 'flash' }, at: r.json.at });
  const m = await c.next('message', 3000);
  const arrived = Date.now();
  assert.deepEqual(m.data, { sale: 'flash' });
  assert.ok(arrived >= r.json.at - EARLY_MARGIN_MS, `early by ${r.json.at - arrived} ms`);
  assert.ok(arrived <= r.json.at + latestMs(srv, 0), `late by ${arrived - r.json.at} ms`);
  assert.ok(m.ts >= r.json.at, 'ts is the publish time');
  assert.equal((await scheduled()).find((s) => s.scheduled === r.json.scheduled), undefined);
});

test('at: the listing is oldest first; a time now or past publishes at once', async () => {
  const now = Date.now();
  const late = await post({ data: 'late', at: now + 60_000 });
  const early = await post({ data: 'early', at: now + 30_000 });
  assert.equal(late.status, 202, late.text);
  assert.equal(early.status, 202, early.text);
  const ids = (await scheduled()).map((s) => s.scheduled);
  assert.ok(ids.indexOf(early.json.scheduled) < ids.indexOf(late.json.scheduled), ids.join());
  for (const id of [early.json.scheduled, late.json.scheduled]) {
    assert.equal((await srv.admin('DELETE', `/admin/scheduled/${id}`)).status, 200);
  }
  const past = await post({ data: 'past', at: now - 1000 });
  assert.equal(past.status, 200, past.text);
  assert.equal(typeof past.json.id, 'number');
  const zero = await post({ data: 'zero', delay: '0' });
  assert.equal(zero.status, 200, zero.text);
});

test('cancel: 200 once, then 404; a cancelled publish never arrives', async () => {
  const user = uid('cancel');
  const c = await srv.wsHello({ user });
  const r = await post({ user, data: 'never', delay: '400ms' });
  assert.equal(r.status, 202, r.text);
  const del = await srv.admin('DELETE', `/admin/scheduled/${r.json.scheduled}`);
  assert.equal(del.status, 200, del.text);
  assertError(await srv.admin('DELETE', `/admin/scheduled/${r.json.scheduled}`), 404, 'not_found', 'again');
  assertError(await srv.admin('DELETE', '/admin/scheduled/nope'), 404, 'not_found', 'unknown id');
  assertError(await srv.admin('POST', '/admin/scheduled/x'), 405, 'method_not_allowed', 'POST');
  assertError(await srv.admin('DELETE', '/admin/scheduled'), 405, 'method_not_allowed', 'DELETE list');
  assertError(await srv.admin('GET', '/admin/scheduled', { token: 'wrong' }), 401, 'unauthorized', 'token');
  await c.none('message', 700);
});

test('bad at/delay get 400; past the limit 429; nothing changes', async () => {
  const s0 = await srv.stats();
  const n0 = (await scheduled()).length;
  for (const body of [{ data: 1, at: Date.now() + 1000, delay: '1s' }, { data: 1, at: 'soon' },
    { data: 1, at: 1.5 }, { data: 1, at: -5 }, { data: 1, delay: 'soon' }, { data: 1, delay: 5 },
    { data: 1, at: Date.now() + 400 * 86_400_000 }, { data: 1, delay: '9000h' },
    { data: 1, ttl: '0' }, { data: 1, ttl: 'long' }]) {
    assertError(await post(body), 400, 'bad_request', JSON.stringify(body));
  }
  assert.equal((await scheduled()).length, n0);
  const ids = [];
  while ((await scheduled()).length < 3) {
    const r = await post({ data: 'fill', delay: '1h' });
    assert.equal(r.status, 202, r.text);
    ids.push(r.json.scheduled);
  }
  assertError(await post({ data: 'over', delay: '1h' }), 429, 'too_many', 'over the limit');
  assert.equal((await scheduled()).length, 3);
  assert.equal((await srv.stats()).messages.scheduled, 3);
  assert.match((await srv.get('/metrics')).text, /^ringcast_scheduled 3$/mu);
  for (const id of ids) assert.equal((await srv.admin('DELETE', `/admin/scheduled/${id}`)).status, 200);
  const s1 = await srv.stats();
  assert.equal(s1.messages.published, s0.messages.published);
});

test('ttl: live clients get expired on WebSocket, SSE and a held poll; resume never returns it', async () => {
  const user = uid('ttl');
  const ws = await srv.wsHello({ user, sid: 'w' });
  const sse = await srv.sseHello({ user, sid: 's' });
  const before = await srv.publish({ user, data: 'before' });
  const held = srv.poll({ user, sid: 'p', since: before.id });
  await srv.statsUntil((s) => s.connections.poll >= 1);
  const r = await srv.publish({ user, data: 'sale', ttl: '600ms' });
  const polled = await held;
  assert.equal(polled.json.messages[0].id, r.id);
  const m = await ws.next((x) => x.type === 'message' && x.id === r.id);
  assert.ok(m.expires >= m.ts + 600 && m.expires <= m.ts + 601, JSON.stringify(m));
  const held2 = srv.poll({ user, sid: 'p', since: r.id });
  const expired = await ws.next('expired', 3000);
  const at = Date.now();
  assert.deepEqual(expired, { type: 'expired', id: r.id, ...(expired.receivedAt ? { receivedAt: expired.receivedAt } : {}) });
  assert.ok(at >= m.expires - EARLY_MARGIN_MS, `expired ${m.expires - at} ms early`);
  const sseExpired = await sse.next('expired', 3000);
  assert.equal(sseExpired.event, 'expired');
  assert.equal(sseExpired.json.id, r.id);
  assert.equal(sseExpired.id, undefined, 'no id: line, Last-Event-ID stays');
  const p2 = await held2;
  assert.deepEqual(p2.json.messages.map((x) => [x.type, x.id]), [['expired', r.id]]);
  // Resume (since, Last-Event-ID, poll) returns the message before it, not the expired one: no gap.
  const again = await srv.poll({ user, sid: 'q', since: before.id - 1 });
  assert.deepEqual(again.json.messages.map((x) => x.id), [before.id]);
  assert.equal(again.json.gap, false);
  const resumed = await srv.wsHello({ user, sid: 'r', since: before.id - 1 });
  assert.equal(resumed.hello.gap, false);
  assert.equal((await resumed.next('message')).id, before.id);
  await resumed.none('message', 200);
  const stats = await srv.stats();
  assert.ok(stats.messages.expired >= 1);
});

test('reach: recipients, delivered and acked per message; 404 once unknown', async () => {
  const [a, b] = [uid('ra'), uid('rb')];
  const ca = await srv.wsHello({ user: a });
  await srv.wsHello({ user: b });
  const r = await srv.publish({ users: [a, b], data: 'reach' });
  const m = await ca.next('message');
  ca.send({ type: 'ack', id: m.id });
  const reach = await waitFor(async () => {
    const x = await srv.admin('GET', `/admin/messages/${r.id}`);
    return x.json?.acked === 1 ? x : null;
  }, 3000, 'the ack counted');
  assert.equal(reach.status, 200);
  const { published, ...rest } = reach.json;
  assert.ok(Math.abs(published - Date.now()) < 5000);
  assert.deepEqual(rest, { id: r.id, label: '"reach"', recipients: 2, delivered: 2, acked: 1, expired: false });
  assertError(await srv.admin('GET', '/admin/messages/1'), 404, 'not_found', 'not in history');
  assertError(await srv.admin('GET', '/admin/messages/x1'), 400, 'bad_request', 'not a number');
  assert.match((await srv.get('/metrics')).text, /^ringcast_messages_acked_total [1-9]/mu);
  await sleep(0);
});

// The admin page names reach rows by `label`: a person cannot tell promotions apart by 16-digit ids.
test('reach: each message is labelled by its data\'s title, else the start of its data (80 characters at most)', async () => {
  const long = 'é'.repeat(100);
  const cases = [
    [{ title: 'Spring sale', text: '-20%' }, 'Spring sale'],
    [{ text: 'no title' }, '{"text":"no title"}'],
    [{ title: long }, `${long.slice(0, 80)}…`],
    [[1, 2, 3], '[1,2,3]'],
  ];
  const ids = [];
  for (const [data] of cases) ids.push((await srv.publish({ data })).id);
  for (const [i, [, label]] of cases.entries()) {
    assert.equal((await srv.admin('GET', `/admin/messages/${ids[i]}`)).json.label, label);
  }
  const listed = (await srv.admin('GET', `/admin/messages?limit=${cases.length}`)).json.messages;
  assert.deepEqual(listed.map((r) => r.label), cases.map(([, label]) => label).reverse());
});

test('recent messages: GET /admin/messages lists the newest with their reach, newest first', async () => {
  const user = uid('recent');
  const c = await srv.wsHello({ user });
  const ids = [];
  for (let i = 0; i < 3; i++) ids.push((await srv.publish({ user, data: i, spread: i === 2 ? '1s' : undefined })).id);
  const m = await c.next('message');
  c.send({ type: 'ack', id: m.id });
  const list = await waitFor(async () => {
    const x = await srv.admin('GET', '/admin/messages?limit=3');
    return x.json?.messages?.find((r) => r.id === ids[0])?.acked === 1 ? x : null;
  }, 3000, 'the ack counted in the list');
  assert.equal(list.status, 200, list.text);
  assert.deepEqual(list.json.messages.map((r) => r.id), [...ids].reverse(), 'newest first');
  const [paced, , first] = list.json.messages;
  assert.equal(paced.spread, '1s');
  assert.deepEqual({ ...first, published: undefined },
    { id: ids[0], label: '0', published: undefined, recipients: 1, delivered: 1, acked: 1, expired: false });
  // The same figures as GET /admin/messages/<id>.
  assert.deepEqual((await srv.admin('GET', `/admin/messages/${ids[0]}`)).json, first);
  assert.equal((await srv.admin('GET', '/admin/messages')).json.messages.length >= 3, true, 'default limit');
  for (const bad of ['limit=0', 'limit=101', 'limit=x', 'top=3']) {
    assertError(await srv.admin('GET', `/admin/messages?${bad}`), 400, 'bad_request', bad);
  }
  assertError(await srv.admin('POST', '/admin/messages'), 405, 'method_not_allowed', 'POST');
});
