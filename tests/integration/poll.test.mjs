// docs/protocol.md, "Long-poll".
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { assertOnTime, rawConnect, startServer, uid } from './harness.mjs';

let srv;
before(async () => { srv = await startServer(['--poll-timeout', '1']); });
after(async () => { await srv?.stop(); });

async function held(n = 1) {
  return srv.statsUntil((s) => s.connections.poll >= n, 3000, `${n} held poll(s)`);
}

test('messages retained after since: answered at once', async () => {
  const a = await srv.publish({ data: 'a' });
  const b = await srv.publish({ data: 'b' });
  const r = await srv.poll({ user: uid('imm'), since: a.id });
  assert.equal(r.status, 200);
  assert.ok(r.elapsed < 800, `took ${r.elapsed} ms`);
  assert.equal(r.json.type, 'messages');
  assert.deepEqual(r.json.messages.map((m) => [m.id, m.data]), [[b.id, 'b']]);
  assert.equal(r.json.last_id, b.id);
  assert.equal(r.json.gap, false);
});

test('a held poll is answered at once by a publish, only with what is addressed to it', async () => {
  const user = uid('held');
  const ch = uid('ch');
  const s0 = await srv.stats();
  const p = srv.poll({ user, channels: ch });
  await held(s0.connections.poll + 1);
  const other = await srv.publish({ channel: uid('other'), data: 'not yours' });
  assert.equal(other.recipients, 0);
  const t0 = Date.now();
  const pub = await srv.publish({ channel: ch, data: { hi: 1 } });
  assert.equal(pub.recipients, 1, 'a held poll is a live recipient');
  const r = await p;
  assert.ok(Date.now() - t0 < 500, 'not answered at once');
  assert.equal(r.json.type, 'messages');
  assert.deepEqual(r.json.messages.map((m) => m.id), [pub.id]);
  assert.equal(r.json.messages[0].channel, ch);
  assert.deepEqual(r.json.messages[0].data, { hi: 1 });
  assert.equal(r.json.last_id, pub.id);
});

test('--poll-timeout 1: a held poll is answered reconnect/timeout with retry_ms and last_id', async () => {
  const s0 = await srv.stats();
  const last = (await srv.publish({ data: 'before' })).id;
  const r = await srv.poll({ user: uid('to'), since: last });
  assert.equal(r.status, 200);
  assert.equal(r.json.type, 'reconnect', r.text);
  assert.equal(r.json.reason, 'timeout');
  assert.ok(Number.isInteger(r.json.retry_ms) && r.json.retry_ms >= 0, r.text);
  assert.equal(r.json.last_id, last);
  assertOnTime(srv, r.elapsed, 1000, 'reconnect/timeout');
  const s1 = await srv.stats();
  assert.ok(s1.expirations.poll_timeout >= s0.expirations.poll_timeout + 1);
});

test('keep-alive: the next poll goes over the same TCP connection and finds the same session', async () => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const user = uid('ka');
    const a = await srv.publish({ data: 1 });
    const b = await srv.publish({ data: 2 });
    const s0 = await srv.stats();
    const r1 = await srv.poll({ user, since: a.id }, { agent });
    assert.equal(r1.json.type, 'messages');
    assert.notEqual(r1.headers.connection, 'close');
    const p2 = srv.poll({ user, since: b.id }, { agent });
    await held(s0.connections.poll + 1);
    const c = await srv.publish({ data: 3 });
    const r2 = await p2;
    assert.deepEqual(r2.json.messages.map((m) => m.id), [c.id]);
    assert.equal(r2.localPort, r1.localPort, 'second poll used a new TCP connection');
    assert.strictEqual(r2.socket, r1.socket);
    const r3 = await srv.poll({ user, since: c.id }, { agent }); // held, then times out
    assert.equal(r3.json.type, 'reconnect');
    assert.equal(r3.localPort, r1.localPort);
    const s1 = await srv.stats();
    assert.equal(s1.sessions_reused, s0.sessions_reused + 2, 'each later poll found the session');
  } finally {
    agent.destroy();
  }
});

test('a polling loop with since loses nothing and duplicates nothing', async () => {
  const user = uid('loop');
  let since = (await srv.publish({ data: 'start' })).id;
  const published = [];
  const got = [];
  let done = false;
  const client = (async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const deadline = Date.now() + 10000;
    try {
      while (!done || got[got.length - 1] !== published[published.length - 1]) {
        assert.ok(Date.now() < deadline, `poll loop still waiting: got ${got}, published ${published}`);
        const r = await srv.poll({ user, since }, { agent });
        assert.equal(r.status, 200, r.text);
        if (r.json.type === 'messages') {
          got.push(...r.json.messages.map((m) => m.id));
          since = r.json.last_id;
        } else {
          assert.equal(r.json.type, 'reconnect', r.text);
        }
      }
    } finally {
      agent.destroy();
    }
  })();
  for (let i = 0; i < 25; i++) {
    published.push((await srv.publish({ data: i })).id);
    if (i % 5 === 0) await new Promise((r) => setTimeout(r, 30));
  }
  done = true;
  await client;
  assert.deepEqual(got, published);
});

test('a client that hangs up on a held poll frees it at once, not at the poll timeout', async () => {
  const s0 = await srv.stats();
  const socket = await rawConnect(srv);
  socket.write(`GET /poll?user=${uid('gone')} HTTP/1.1\r\nHost: x\r\n\r\n`);
  await held(s0.connections.poll + 1);
  socket.destroy();
  // --poll-timeout is 1 s: well before it, the held poll must be gone.
  const t0 = Date.now();
  await srv.statsUntil((s) => s.connections.poll === s0.connections.poll, 600, 'poll released');
  assert.ok(Date.now() - t0 < 600);
});
