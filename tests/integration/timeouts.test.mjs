// docs/protocol.md, "Timeouts and keep-alive": session TTL, handshake timeout, max connection age (each a short flag).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  arrivedAt, assertOnTime, latestMs, rawConnect, sleep, startServer, uid, waitFor,
} from './harness.mjs';

describe('--session-ttl 1 --handshake-timeout 1', () => {
  let srv;
  before(async () => { srv = await startServer(['--session-ttl', '1', '--handshake-timeout', '1']); });
  after(async () => { await srv?.stop(); });

  test('a session without connection lives out its TTL, then a reconnect starts a new one', async () => {
    const user = uid('ttl');
    const s0 = await srv.stats();
    const a = await srv.wsHello({ user });
    assert.equal(a.hello.session_ttl_s, 1);
    assert.equal(a.hello.resumed, false);
    await a.close();
    const closedAt = Date.now();
    // Within the TTL it is still there.
    await sleep(300);
    const mid = await srv.stats();
    assert.equal(mid.sessions.total, s0.sessions.total + 1, 'session dropped before its TTL');
    // The expiry is seen by polling /admin/stats every 10 ms: each look adds up to a round trip.
    const pollAllowance = 50;
    const dropped = await waitFor(async () => {
      const s = await srv.stats();
      return s.sessions.total === s0.sessions.total ? s : null;
    }, latestMs(srv, 1000, pollAllowance) + 500, 'session expiry', 10);
    assertOnTime(srv, Date.now() - closedAt, 1000, 'session dropped', pollAllowance);
    assert.ok(dropped.expirations.session_ttl >= s0.expirations.session_ttl + 1);
    const b = await srv.wsHello({ user });
    assert.equal(b.hello.resumed, false, 'a connect after the TTL must start a new session');
    const s1 = await srv.stats();
    assert.equal(s1.sessions_reused, s0.sessions_reused);
    await b.close();
  });

  test('a reconnect just inside the TTL still finds the session', async () => {
    const user = uid('ttl2');
    const a = await srv.wsHello({ user });
    await a.close();
    await sleep(400);
    const b = await srv.wsHello({ user });
    assert.equal(b.hello.resumed, true);
    await b.close();
  });

  test('a connection that has not sent a whole request is closed after the handshake timeout', async () => {
    const s0 = await srv.stats();
    const half = await rawConnect(srv);
    const silent = await rawConnect(srv);
    const t0 = Date.now();
    half.write('GET /ws?user=slowloris HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n');
    // Each loop accepts from its own listening socket: the stats request may be read on one loop
    // before the other has accepted its raw socket, so the count is waited for, within the
    // handshake timeout that ends them.
    await srv.statsUntil((s) => s.connections.total >= s0.connections.total + 2, 800,
      'connections.total counting connections still sending their request');
    const closedAfter = (s) => new Promise((resolve) => {
      s.on('data', () => {});
      s.on('error', () => {});
      s.on('close', () => resolve(Date.now() - t0));
    });
    const [dtHalf, dtSilent] = await Promise.all([closedAfter(half), closedAfter(silent)]);
    assertOnTime(srv, dtHalf, 1000, 'half a request closed');
    assertOnTime(srv, dtSilent, 1000, 'silent connection closed');
    const s1 = await srv.stats();
    // Half a request is a failed handshake; a connection that sent nothing is only unused.
    assert.equal(s1.expirations.handshake, s0.expirations.handshake + 1, JSON.stringify(s1.expirations));
    assert.equal(s1.expirations.unused, s0.expirations.unused + 1, JSON.stringify(s1.expirations));
  });

  test('a request completed before the handshake timeout is served (the timer does not fire early)', async () => {
    const s = await rawConnect(srv);
    let text = '';
    s.setEncoding('utf8');
    s.on('data', (c) => { text += c; });
    s.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await sleep(600);
    s.write('Connection: close\r\n\r\n');
    await new Promise((resolve) => s.on('close', resolve));
    assert.match(text, /^HTTP\/1\.1 200/);
  });
});

describe('--max-connection-age 1', () => {
  let srv;
  before(async () => { srv = await startServer(['--max-connection-age', '1']); });
  after(async () => { await srv?.stop(); });

  test('every WebSocket gets reconnect/rebalance with a jittered retry_ms, then is closed', async () => {
    const s0 = await srv.stats();
    const clients = await Promise.all(Array.from({ length: 6 }, () => srv.wsHello({ user: uid('age') })));
    const msgs = await Promise.all(clients.map((c) => c.next('reconnect', latestMs(srv, 1000) + 500)));
    // The age counts from the session's attach, just before its hello.
    for (const [i, m] of msgs.entries()) {
      assertOnTime(srv, arrivedAt(m) - clients[i].helloAt, 1000, `reconnect/rebalance ${i}`);
    }
    for (const m of msgs) {
      assert.equal(m.reason, 'rebalance');
      assert.ok(Number.isInteger(m.retry_ms) && m.retry_ms >= 0, JSON.stringify(m));
      assert.equal(typeof m.last_id, 'number');
    }
    const retries = msgs.map((m) => m.retry_ms);
    assert.ok(new Set(retries).size > 1, `retry_ms not jittered: ${retries}`);
    await Promise.all(clients.map((c) => c.waitClosed(3000)));
    const s1 = await srv.stats();
    assert.ok(s1.expirations.max_age >= s0.expirations.max_age + 6, JSON.stringify(s1.expirations));
    // The session survives: the client comes back and is resumed.
    const again = await srv.wsHello({ user: clients[0].hello.session.split('/')[0] });
    assert.equal(again.hello.resumed, true);
    await again.close();
  });
});
