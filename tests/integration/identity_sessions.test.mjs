// docs/protocol.md, "Sessions": identity, sessions, reuse on reconnect, replacement.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { query, startServer, uid } from './harness.mjs';

let srv;
before(async () => { srv = await startServer(['--session-ttl', '30']); });
after(async () => { await srv?.stop(); });

const ok = 'valid_user';
const BAD = [
  ['missing user', {}],
  ['empty user', { user: '' }],
  ['user of 65 chars', { user: 'a'.repeat(65) }],
  ['user with a space', { user: 'bad user' }],
  ['user with a slash', { user: 'a/b' }],
  ['user with a non-ASCII letter', { user: 'usé' }],
  ['sid of 65 chars', { user: ok, sid: 's'.repeat(65) }],
  ['sid with a bad char', { user: ok, sid: 'tab!1' }],
  ['empty sid', { user: ok, sid: '' }],
  ['since not a number', { user: ok, since: 'abc' }],
  ['negative since', { user: ok, since: '-1' }],
  ['since with a fraction', { user: ok, since: '1.5' }],
  ['since beyond 64 bits', { user: ok, since: '18446744073709551616' }],
  ['33 channels', { user: ok, channels: Array.from({ length: 33 }, (_, i) => `c${i}`) }],
  ['a bad channel name', { user: ok, channels: 'good,bad chan' }],
];

function assertBadRequest(r, what) {
  assert.equal(r.status, 400, `${what}: status ${r.status} ${r.text}`);
  assert.ok(r.json && typeof r.json === 'object', `${what}: body is not JSON: ${r.text}`);
  assert.equal(r.json.error, 'bad_request', `${what}: ${r.text}`);
  assert.equal(typeof r.json.message, 'string', `${what}: ${r.text}`);
}

test('invalid or missing user/sid/since/channels -> 400 JSON on every transport, nothing created', async () => {
  const before0 = await srv.stats();
  for (const [what, params] of BAD) {
    const poll = await srv.poll(params);
    assertBadRequest(poll, `poll ${what}`);
    const sse = await srv.get(`/sse${query(params)}`, { headers: { Accept: 'text/event-stream' } });
    assertBadRequest(sse, `sse ${what}`);
    const ws = await srv.wsRefused(params);
    assertBadRequest(ws, `ws ${what}`);
  }
  const after0 = await srv.stats();
  assert.equal(after0.sessions.total, before0.sessions.total, 'a refused request created a session');
  assert.equal(after0.sessions_reused, before0.sessions_reused);
  // The server is still fine.
  const c = await srv.wsHello({ user: uid('alive') });
  assert.equal(c.hello.type, 'hello');
  await c.close();
});

test('limits are inclusive: 64-char user/sid of the whole charset and 32 channels are accepted', async () => {
  const user = 'Az09_.:@-'.padEnd(64, 'x');
  const sid = 'S-._:@9'.padEnd(64, 'y');
  const channels = Array.from({ length: 32 }, (_, i) => `ch.${i}`);
  const c = await srv.wsHello({ user, sid, channels });
  assert.equal(c.hello.session, `${user}/${sid}`);
  const ch = await srv.publish({ channel: 'ch.31', data: 'edge' });
  const m = await c.next('message');
  assert.equal(m.id, ch.id);
  assert.equal(m.channel, 'ch.31');
  await c.close();
});

test('hello names the session user/sid; sid defaults to 0', async () => {
  const user = uid('id');
  const a = await srv.wsHello({ user });
  assert.equal(a.hello.session, `${user}/0`);
  assert.equal(a.hello.resumed, false);
  const b = await srv.wsHello({ user, sid: 'tab1' });
  assert.equal(b.hello.session, `${user}/tab1`);
  assert.equal(b.hello.resumed, false, 'a different sid is a different session');
  assert.ok(a.isOpen(), 'another sid of the same user must not replace the first');
  await a.close();
  await b.close();
});

test('reconnect within the TTL on any transport finds the same session (resumed, sessions_reused)', async () => {
  const user = uid('re');
  const p = { user, sid: 't1' };
  const s0 = await srv.stats();

  const ws1 = await srv.wsHello(p);
  assert.equal(ws1.hello.resumed, false);
  await ws1.close();
  const s1 = await srv.statsUntil((s) => s.sessions.connected === s0.sessions.connected, 3000, 'ws1 gone');
  assert.equal(s1.sessions.total, s0.sessions.total + 1, 'the session outlives its connection');

  // WebSocket again, without since: same session.
  const ws2 = await srv.wsHello(p);
  assert.equal(ws2.hello.resumed, true, 'ws reconnect within TTL must find the session');
  await ws2.close();
  const s2 = await srv.statsUntil((s) => s.sessions.connected === s0.sessions.connected, 3000, 'ws2 gone');
  assert.equal(s2.sessions_reused, s0.sessions_reused + 1);
  assert.equal(s2.sessions.total, s0.sessions.total + 1, 'no second session for the same (user, sid)');
  assert.ok(s2.moves.reconnect >= s0.moves.reconnect + 1, 'a reconnect moves the wheel node');

  // SSE: same session.
  const sse = await srv.sseHello(p);
  assert.equal(sse.hello.resumed, true, 'sse reconnect must find the session');
  assert.equal(sse.hello.session, `${user}/t1`);
  sse.close();
  const s3 = await srv.statsUntil((s) => s.sessions.connected === s0.sessions.connected, 3000, 'sse gone');
  assert.equal(s3.sessions_reused, s0.sessions_reused + 2);

  // Long-poll: same session (counted as reuse); held until a message for it is published.
  const held = srv.poll(p);
  await srv.statsUntil((s) => s.connections.poll >= 1, 3000, 'poll held');
  const pub = await srv.publish({ user, data: { n: 1 } });
  const r = await held;
  assert.equal(r.status, 200);
  assert.equal(r.json.type, 'messages');
  assert.deepEqual(r.json.messages.map((m) => m.id), [pub.id]);
  const s4 = await srv.stats();
  assert.equal(s4.sessions_reused, s0.sessions_reused + 3, 'a poll reconnect reuses the session');
  assert.equal(s4.sessions.total, s0.sessions.total + 1);

  // And back to WebSocket after the poll.
  const ws3 = await srv.wsHello(p);
  assert.equal(ws3.hello.resumed, true, 'ws after poll must find the session');
  await ws3.close();
});

test('a session created by a long-poll is found by a later WebSocket', async () => {
  const user = uid('pw');
  const s0 = await srv.stats();
  const held = srv.poll({ user });
  await srv.statsUntil((s) => s.sessions.total === s0.sessions.total + 1, 3000, 'poll session');
  const ws = await srv.wsHello({ user });
  assert.equal(ws.hello.resumed, true);
  const r = await held; // replaced by the WebSocket
  assert.equal(r.json.type, 'reconnect');
  await ws.close();
});

test('a second WebSocket replaces the first: close/replaced, then the socket closes', async () => {
  const user = uid('rep');
  const s0 = await srv.stats();
  const ws1 = await srv.wsHello({ user, sid: 'x' });
  const ws2 = await srv.wsHello({ user, sid: 'x' });
  assert.equal(ws2.hello.resumed, true);
  const close = await ws1.next('close');
  assert.equal(close.reason, 'replaced');
  await ws1.waitClosed(3000);
  // The new connection is the live one.
  const pub = await srv.publish({ user, data: 'to the new one' });
  const m = await ws2.next('message');
  assert.equal(m.id, pub.id);
  assert.equal(pub.recipients, 1);
  await ws2.sync();
  const s1 = await srv.stats();
  assert.ok(s1.expirations.replaced >= s0.expirations.replaced + 1, 'expirations.replaced counts it');
  assert.equal(s1.sessions.total, s0.sessions.total + 1);
  await ws2.close();
});

test('a second poll answers the held one reconnect/replaced; a WebSocket replaces a held poll', async () => {
  const user = uid('prep');
  const p = { user, sid: 'tab' };
  const s0 = await srv.stats();
  const p1 = srv.poll(p);
  await srv.statsUntil((s) => s.connections.poll >= s0.connections.poll + 1, 3000, 'first poll held');
  const p2 = srv.poll(p);
  const r1 = await p1;
  assert.equal(r1.status, 200);
  assert.equal(r1.json.type, 'reconnect', r1.text);
  assert.equal(r1.json.reason, 'replaced');
  assert.equal(typeof r1.json.retry_ms, 'number');
  await srv.statsUntil((s) => s.connections.poll >= s0.connections.poll + 1, 3000, 'second poll held');
  const ws = await srv.wsHello(p);
  assert.equal(ws.hello.resumed, true);
  const r2 = await p2;
  assert.equal(r2.json.type, 'reconnect', r2.text);
  assert.equal(r2.json.reason, 'replaced');
  await ws.close();
});

test('SSE replaced by a WebSocket gets event: close (replaced) and its response ends; and vice versa', async () => {
  const user = uid('srep');
  const sse = await srv.sseHello({ user });
  const ws = await srv.wsHello({ user });
  const ev = await sse.next('close');
  assert.equal(ev.event, 'close');
  assert.equal(ev.json.reason, 'replaced');
  await sse.waitEnded(3000);

  const sse2 = await srv.sseHello({ user });
  assert.equal(sse2.hello.resumed, true);
  const c = await ws.next('close');
  assert.equal(c.reason, 'replaced');
  await ws.waitClosed(3000);
  sse2.close();
});

test('a bad request does not disturb other clients', async () => {
  const user = uid('calm');
  const c = await srv.wsHello({ user });
  for (let i = 0; i < 5; i++) assert.equal((await srv.poll({ user: 'no good' })).status, 400);
  const r = await srv.get('/ws?user=%00%01', {});
  assert.ok(r.status >= 400 && r.status < 500);
  const pub = await srv.publish({ user, data: 1 });
  assert.equal((await c.next('message')).id, pub.id);
  assert.ok(c.isOpen());
  await c.close();
});
