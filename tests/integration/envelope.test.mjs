// docs/protocol.md, "Envelopes (server → client)": the server -> client envelope, the same on every transport.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, uid } from './harness.mjs';

let srv;
before(async () => {
  srv = await startServer(['--heartbeat', '7', '--idle-timeout', '9', '--session-ttl', '11', '--poll-timeout', '1']);
});
after(async () => { await srv?.stop(); });

const PAYLOADS = [
  { price: 9.99, items: [1, 'two', null, true, { deep: { er: [] } }] },
  'a plain string with "quotes", \\ backslash, newline\nand unicode: héllo ✓ 😀',
  12345,
  -0.5,
  true,
  null,
  [],
  {},
];

function checkMessage(m, pub, channel, data) {
  for (const k of ['type', 'id', 'channel', 'ts', 'data']) assert.ok(k in m, `message lacks ${k}: ${JSON.stringify(m)}`);
  assert.equal(m.type, 'message');
  assert.equal(m.id, pub.id);
  assert.equal(m.channel, channel);
  assert.ok(Number.isInteger(m.ts), `ts ${m.ts}`);
  assert.ok(Math.abs(m.ts - Date.now()) < 10_000, `ts ${m.ts} is not Unix milliseconds of now`);
  assert.deepEqual(m.data, data);
}

test('hello carries session, resumed, last_id, gap and the timeouts from the flags', async () => {
  const user = uid('h');
  const c = await srv.wsHello({ user, sid: 'tab1' });
  const h = c.hello;
  assert.equal(h.type, 'hello');
  assert.equal(h.session, `${user}/tab1`);
  assert.equal(h.resumed, false);
  assert.ok(Number.isInteger(h.last_id) && h.last_id >= 0);
  assert.equal(h.gap, false);
  assert.equal(h.heartbeat_s, 7);
  assert.equal(h.idle_timeout_s, 9);
  assert.equal(h.session_ttl_s, 11);
  const s = await srv.sseHello({ user: uid('h2') });
  for (const k of ['session', 'resumed', 'last_id', 'gap', 'heartbeat_s', 'idle_timeout_s', 'session_ttl_s']) {
    assert.ok(k in s.hello, `sse hello lacks ${k}`);
  }
  s.close();
  await c.close();
});

test('message envelope: id, channel, ts, data (any JSON, UTF-8) identical on ws, sse and poll', async () => {
  const user = uid('env');
  const ch = uid('ch');
  const ws = await srv.wsHello({ user, channels: ch });
  const sse = await srv.sseHello({ user: uid('env2'), channels: ch });
  const start = (await srv.publish({ data: 'start' })).id;
  await ws.next('message');
  await sse.next('message');
  const pubs = [];
  for (const data of PAYLOADS) {
    pubs.push([await srv.publish({ data }), '*', data]);
    pubs.push([await srv.publish({ channel: ch, data }), ch, data]);
  }
  const targeted = await srv.publish({ user, data: { only: 'you' } });
  for (const [pub, channel, data] of pubs) {
    checkMessage(await ws.next('message'), pub, channel, data);
    const ev = await sse.next('message');
    assert.equal(ev.event, 'message');
    assert.equal(ev.id, String(pub.id));
    checkMessage(ev.json, pub, channel, data);
  }
  checkMessage(await ws.next('message'), targeted, `user:${user}`, { only: 'you' });
  // The same messages through a poll that resumes from `start`.
  const r = await srv.poll({ user: uid('env3'), channels: ch, since: start });
  for (const k of ['type', 'messages', 'last_id', 'gap']) assert.ok(k in r.json, `poll reply lacks ${k}`);
  assert.equal(r.json.type, 'messages');
  assert.equal(r.json.messages.length, pubs.length);
  r.json.messages.forEach((m, i) => checkMessage(m, pubs[i][0], pubs[i][1], pubs[i][2]));
  assert.match(r.headers['content-type'], /application\/json/);
  sse.close();
  await ws.close();
});

test('reconnect envelope: reason, retry_ms, last_id', async () => {
  const last = (await srv.publish({ data: 'x' })).id;
  const r = await srv.poll({ user: uid('rc') });
  assert.equal(r.status, 200);
  assert.equal(r.json.type, 'reconnect');
  assert.equal(r.json.reason, 'timeout');
  assert.ok(Number.isInteger(r.json.retry_ms) && r.json.retry_ms >= 0, r.text);
  assert.equal(r.json.last_id, last);
});

test('close envelope and error envelope', async () => {
  const user = uid('cl');
  const c = await srv.wsHello({ user });
  c.send('this is not json');
  const e = await c.next('error');
  assert.equal(e.code, 'bad_request');
  assert.equal(typeof e.message, 'string');
  await srv.kick(user);
  const close = await c.next('close');
  assert.equal(close.reason, 'kicked');
  await c.waitClosed();
});

test('error bodies of HTTP endpoints are {"error": code, "message": text}', async () => {
  const r = await srv.poll({ user: '' });
  assert.equal(r.status, 400);
  assert.match(r.headers['content-type'], /application\/json/);
  assert.equal(r.json.error, 'bad_request');
  assert.equal(typeof r.json.message, 'string');
  const nf = await srv.get('/no/such/thing');
  assert.equal(nf.status, 404);
  assert.equal(nf.json.error, 'not_found');
  const un = await srv.admin('GET', '/admin/stats', { token: null });
  assert.equal(un.status, 401);
  assert.equal(un.json.error, 'unauthorized');
});
