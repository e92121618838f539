// docs/protocol.md, "Server-Sent Events".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { assertOnTime, latestMs, startServer, uid } from './harness.mjs';

let srv;
before(async () => { srv = await startServer(['--heartbeat', '1']); });
after(async () => { await srv?.stop(); });

test('text/event-stream; hello first; then id: / event: message / data: lines', async () => {
  const user = uid('s');
  const c = await srv.sse({ user });
  assert.equal(c.status, 200);
  assert.match(c.headers['content-type'], /^text\/event-stream/);
  const first = await c.events.next(null, 3000);
  assert.equal(first.json?.type, 'hello', `first event: ${JSON.stringify(first)}`);
  assert.equal(first.json.session, `${user}/0`);
  const pubs = [];
  for (let i = 0; i < 3; i++) pubs.push(await srv.publish({ data: { i, text: 'line1\nline2' } }));
  for (const [i, pub] of pubs.entries()) {
    const ev = await c.next('message');
    assert.equal(ev.event, 'message');
    assert.equal(ev.id, String(pub.id));
    assert.equal(ev.json.id, pub.id);
    assert.deepEqual(ev.json.data, { i, text: 'line1\nline2' });
    assert.ok(ev.fields.indexOf('id') >= 0 && ev.fields.indexOf('data') >= 0);
  }
  c.close();
});

test('a ": hb" comment every heartbeat_s (--heartbeat 1)', async () => {
  const c = await srv.sseHello({ user: uid('hb') });
  assert.equal(c.hello.heartbeat_s, 1);
  // The hello was the last thing sent; then each heartbeat is the last thing sent.
  const hb = await c.comments.next((x) => x.text === 'hb', latestMs(srv, 1000) + 500);
  assertOnTime(srv, hb.at - c.helloAt, 1000, 'first ": hb"');
  const hb2 = await c.comments.next((x) => x.text === 'hb', latestMs(srv, 1000) + 500);
  assertOnTime(srv, hb2.at - hb.at, 1000, 'second ": hb"');
  assert.ok(!c.endedAt, 'response ended');
  c.close();
});

test('kick: an "event: close" (kicked) is sent before the response ends', async () => {
  const user = uid('k');
  const c = await srv.sseHello({ user });
  const r = await srv.kick(user);
  assert.equal(r.kicked, 1);
  const ev = await c.next('close');
  assert.equal(ev.event, 'close');
  assert.equal(ev.json.reason, 'kicked');
  const end = await c.waitEnded(3000);
  assert.ok(end.at >= ev.at);
});

test('the SSE session is resumed on reconnect and the stream carries live messages', async () => {
  const user = uid('res');
  const a = await srv.sseHello({ user, channels: 'x' });
  const m1 = await srv.publish({ channel: 'x', data: 1 });
  const e1 = await a.next('message');
  assert.equal(e1.json.id, m1.id);
  a.close();
  await srv.statsUntil((s) => s.connections.sse === 0, 3000, 'sse gone');
  const m2 = await srv.publish({ channel: 'x', data: 2 });
  const b = await srv.sseHello({ user, channels: 'x' }, { 'Last-Event-ID': e1.id });
  assert.equal(b.hello.resumed, true);
  assert.equal((await b.next('message')).json.id, m2.id);
  b.close();
});
