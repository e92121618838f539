// docs/protocol.md, "WebSocket": client messages, frame limit, heartbeat, idle, slow consumers.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  arrivedAt, assertOnTime, latestMs, rawWebSocket, sleep, startServer, uid, wsFrame,
} from './harness.mjs';

describe('client messages', () => {
  let srv;
  before(async () => { srv = await startServer(['--heartbeat', '30', '--idle-timeout', '30']); });
  after(async () => { await srv?.stop(); });

  test('ping is answered with pong', async () => {
    const c = await srv.wsHello({ user: uid('p') });
    c.send({ type: 'ping' });
    const m = await c.next('pong');
    assert.equal(m.type, 'pong');
    await c.close();
  });

  test('malformed or unknown client messages get error/bad_request and the connection stays', async () => {
    const c = await srv.wsHello({ user: uid('bad') });
    const bad = [
      'not json at all',
      '{"type":"ping"',
      '[]',
      '42',
      '{"no":"type"}',
      '{"type":"nope"}',
      '{"type":"ack"}',
      '{"type":"ack","id":"seven"}',
      '{"type":"subscribe","channels":"not-an-array"}',
      '{"type":"subscribe","channels":["bad channel"]}',
      JSON.stringify({ type: 'subscribe', channels: Array.from({ length: 33 }, (_, i) => `c${i}`) }),
      '{"type":"unsubscribe"}',
    ];
    for (const text of bad) {
      c.send(text);
      const e = await c.next((m) => m.type === 'error' || m.type === 'pong');
      assert.equal(e.type, 'error', `no error for ${text}`);
      assert.equal(e.code, 'bad_request', `for ${text}: ${JSON.stringify(e)}`);
      assert.equal(typeof e.message, 'string');
      assert.ok(c.isOpen(), `closed after ${text}`);
    }
    await c.sync();
    const pub = await srv.publish({ data: 'still here' });
    assert.equal((await c.next('message')).id, pub.id);
    assert.ok(c.isOpen());
    await c.close();
  });

  test('ack, and a valid message of a few KiB, are accepted without error', async () => {
    const c = await srv.wsHello({ user: uid('ack') });
    const pub = await srv.publish({ data: 1 });
    await c.next('message');
    c.send({ type: 'ack', id: pub.id });
    const channels = Array.from({ length: 32 }, (_, i) => `${i}`.padEnd(64, 'c'));
    const big = JSON.stringify({ type: 'subscribe', channels });
    assert.ok(big.length > 2000 && big.length < 4096);
    c.send(big);
    await c.sync();
    assert.equal(c.messages.filter((m) => m.type === 'error').length, 0, JSON.stringify(c.messages));
    const ch = await srv.publish({ channel: channels[31], data: 'big sub' });
    assert.equal((await c.next('message')).id, ch.id);
    await c.close();
  });

  test('a message in fragments, with a ping between them, arrives whole; 4 KiB bounds the whole message', async () => {
    const user = uid('frag');
    const c = await rawWebSocket(srv, { user });
    await c.frames.next((f) => f.opcode === 1); // hello
    const channels = Array.from({ length: 20 }, (_, i) => `f${i}`.padEnd(60, 'f'));
    const text = JSON.stringify({ type: 'subscribe', channels });
    const parts = [text.slice(0, 5), text.slice(5, 700), text.slice(700)];
    c.socket.write(Buffer.concat([
      wsFrame(1, parts[0], { fin: false }),
      wsFrame(0, parts[1], { fin: false }),
      wsFrame(9, 'between'),
      wsFrame(0, parts[2]),
      wsFrame(1, JSON.stringify({ type: 'ping' })),
    ]));
    assert.equal((await c.frames.next((f) => f.opcode === 10)).text, 'between');
    assert.equal(JSON.parse((await c.frames.next((f) => f.opcode === 1)).text).type, 'pong');
    const { id } = await srv.publish({ channel: channels[19], data: 'fragmented sub' });
    assert.equal(JSON.parse((await c.frames.next((f) => f.opcode === 1)).text).id, id);
    // Fragments of 2 KiB each are fine alone, but together the message is over 4 KiB.
    c.socket.write(Buffer.concat([wsFrame(1, 'x'.repeat(2048), { fin: false }),
      wsFrame(0, 'x'.repeat(2048), { fin: false }), wsFrame(0, 'x'.repeat(100))]));
    assert.equal((await c.frames.next((f) => f.opcode === 8)).code, 1009);
    await c.closed;
  });

  test('a client frame over 4 KiB is refused with close code 1009; others are not disturbed', async () => {
    const other = await srv.wsHello({ user: uid('other') });
    const c = await srv.wsHello({ user: uid('big') });
    c.send(JSON.stringify({ type: 'ping', pad: 'x'.repeat(5000) }));
    const info = await c.waitClosed(3000);
    assert.equal(info.code, 1009);
    await other.sync();
    await other.close();
  });
});

describe('heartbeat and idle timeout (--heartbeat 1 --idle-timeout 2)', { concurrency: true }, () => {
  let srv;
  before(async () => { srv = await startServer(['--heartbeat', '1', '--idle-timeout', '2']); });
  after(async () => { await srv?.stop(); });

  test('the server sends a WebSocket ping after heartbeat_s without traffic (not before)', async () => {
    const c = await srv.wsHello({ user: uid('hb') });
    assert.equal(c.hello.heartbeat_s, 1);
    // The hello was the last thing sent: the ping is due heartbeat_s after it.
    const ping = await c.pings.next(null, latestMs(srv, 1000) + 500);
    assertOnTime(srv, ping.at - c.helloAt, 1000, 'ping');
    await c.close();
  });

  test('no client activity: close/idle, then close code 1000, not before idle_timeout_s', async () => {
    const c = await srv.wsHello({ user: uid('idle') }, { autoPong: false });
    // The last client activity is the upgrade request, just before the hello.
    const m = await c.next('close', latestMs(srv, 2000) + 500);
    assert.equal(m.reason, 'idle');
    assertOnTime(srv, arrivedAt(m) - c.helloAt, 2000, 'close/idle');
    const info = await c.waitClosed(2000);
    assert.equal(info.code, 1000);
  });

  test('pongs to the server pings are activity: the connection outlives the idle timeout', async () => {
    const c = await srv.wsHello({ user: uid('pong') }, { autoPong: true });
    await sleep(3500);
    assert.ok(c.pings.items.length >= 1, 'no heartbeat pings');
    assert.ok(c.isOpen(), `closed: ${JSON.stringify(c.messages)}`);
    assert.equal(c.messages.filter((m) => m.type === 'close').length, 0);
    await c.close();
  });

  test('client messages are activity: alive past the timeout, closed idle_timeout_s after the last', async () => {
    const c = await srv.wsHello({ user: uid('act') }, { autoPong: false });
    const until = Date.now() + 3500;
    while (Date.now() < until) {
      await c.sync();
      await sleep(400);
    }
    assert.ok(c.isOpen(), `closed despite activity: ${JSON.stringify(c.messages)}`);
    // The last activity is the ping that this pong answers (it reached the server first).
    const pong = await c.sync();
    const m = await c.next('close', latestMs(srv, 2000) + 500);
    assert.equal(m.reason, 'idle');
    assertOnTime(srv, arrivedAt(m) - arrivedAt(pong), 2000, 'close/idle after the last activity');
    await c.waitClosed(2000);
  });
});

// Over TLS as well: there a write waits inside OpenSSL (want-write) while the queue fills.
for (const tls of [false, true]) describe(`slow consumer (--max-queue 8${tls ? ', TLS' : ''})`, () => {
  let srv;
  before(async () => { srv = await startServer(['--max-queue', '8'], { tls }); });
  after(async () => { await srv?.stop(); });

  test('a client that stops reading is closed; a well-behaved one gets every message', async () => {
    const s0 = await srv.stats();
    const good = await srv.wsHello({ user: uid('good') });
    const slow = await srv.wsHello({ user: uid('slow') });
    slow.socket.pause(); // stops reading the TCP socket
    const blob = 'x'.repeat(48 * 1024);
    const ids = [];
    let slowCount = s0.expirations.slow;
    while (slowCount === s0.expirations.slow && ids.length < 800) {
      for (let i = 0; i < 20; i++) ids.push((await srv.publish({ data: { n: ids.length, blob } })).id);
      slowCount = (await srv.stats()).expirations.slow;
    }
    assert.ok(slowCount > s0.expirations.slow, `expirations.slow did not move after ${ids.length} large messages`);
    slow.socket.resume();
    await slow.waitClosed(10000);
    // What the slow client did get is a gap-free prefix, and it was told why if it was told anything.
    const got = slow.ids();
    assert.deepEqual(got, ids.slice(0, got.length), 'the slow client skipped messages while alive');
    assert.ok(got.length < ids.length, 'the slow client got everything: it was not slow');
    const closes = slow.messages.filter((m) => m.type === 'close');
    for (const c of closes) assert.equal(c.reason, 'slow');
    // The good client: every message, in order.
    const goodIds = (await good.inbox.take(ids.length, 'message', 15000)).map((m) => m.id);
    assert.deepEqual(goodIds, ids);
    assert.ok(good.isOpen());
    await good.close();
  });
});
