// Running into the server's limits (issue 8, docs/security.md): connection churn, --max-connections
// and the file-descriptor limit. After each, the server must still answer /healthz and deliver a
// publish, and hold nothing for the clients that went away.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  assertServes, cpuTicks, rawConnect, request, sleep, startServer, uid, waitFor, OUT_OF_DESCRIPTORS_SKIP,
} from './harness.mjs';

const closeAll = (sockets) => Promise.all(sockets.map((s) => new Promise((resolve) => {
  if (s.destroyed) return resolve();
  s.on('close', resolve);
  s.destroy();
})));

describe('connection churn (--session-ttl 1)', () => {
  let srv;
  before(async () => { srv = await startServer(['--session-ttl', '1', '--threads', '2']); });
  after(async () => { await srv?.stop(); });

  test('2000 connects and disconnects leave no connection or session behind', async () => {
    const s0 = await srv.stats();
    // Every way of going away: a bare TCP connect, half a request, a WebSocket dropped right
    // after its hello, an SSE stream dropped likewise.
    const once = async (k) => {
      switch (k % 4) {
        case 0: {
          const s = await rawConnect(srv);
          return closeAll([s]);
        }
        case 1: {
          const s = await rawConnect(srv);
          s.write(`GET /ws?user=${uid('half')} HTTP/1.1\r\nHost: x\r\n`);
          return closeAll([s]);
        }
        case 2: {
          const c = await srv.wsHello({ user: uid('churn') });
          srv.clients.delete(c);
          return c.terminate();
        }
        default: {
          const c = await srv.sseHello({ user: uid('churn') });
          srv.clients.delete(c);
          return c.close();
        }
      }
    };
    for (let i = 0; i < 2000; i += 50) {
      await Promise.all(Array.from({ length: 50 }, (_, k) => once(i + k)));
    }
    const settled = await srv.statsUntil((s) => s.connections.total === s0.connections.total &&
      s.connections.ws === 0 && s.connections.sse === 0 && s.sessions.total === s0.sessions.total,
    5000, 'connections and sessions back to where they were');
    assert.equal(settled.sessions.connected, s0.sessions.connected);
    assert.ok(settled.expirations.session_ttl >= s0.expirations.session_ttl + 1000,
      JSON.stringify(settled.expirations));
    const metrics = (await srv.get('/metrics')).text;
    assert.match(metrics, /^ringcast_streams\{transport="ws"\} 0$/mu);
    await assertServes(srv);
  });
});

describe('--max-connections 20', () => {
  let srv;
  before(async () => { srv = await startServer(['--max-connections', '20', '--threads', '2',
    '--max-connections-per-ip', '0']); });
  after(async () => { await srv?.stop(); });

  test('at the limit every further request gets 503 overloaded; below it again, all is served', async () => {
    // Raw sockets until a /healthz is refused. An earlier request's connection (the start-up's, or
    // a /healthz of this loop) may still hold a slot when a socket comes: that socket then holds
    // none (it waits for a request to refuse) and the slot is freed a moment later, so more than
    // 20 sockets may be needed.
    const held = [];
    await waitFor(async () => {
      if ((await srv.get('/healthz')).status === 503) return true;
      held.push(await rawConnect(srv));
      return false;
    }, 5000, 'the limit reached');
    assert.ok(held.length >= 20, `the limit reached with ${held.length} sockets held`);
    const over = await Promise.all(Array.from({ length: 100 }, (_, i) => (i % 2
      ? srv.get('/healthz')
      : srv.poll({ user: uid('over') }))));
    for (const r of over) {
      assert.equal(r.status, 503);
      assert.equal(r.json?.error, 'overloaded');
    }
    const refused = await srv.wsRefused({ user: uid('over') });
    assert.equal(refused.status, 503);
    await closeAll(held);
    await waitFor(async () => (await srv.get('/healthz')).status === 200, 3000, 'served again');
    await assertServes(srv);
  });
});

describe('out of file descriptors (ulimit -n 64)', { skip: OUT_OF_DESCRIPTORS_SKIP }, () => {
  let srv;
  before(async () => {
    srv = await startServer(['--threads', '1', '--handshake-timeout', '30',
      '--max-connections-per-ip', '0'], { maxFiles: 64 });
  });
  after(async () => { await srv?.stop(); });

  test('accept backs off instead of spinning, and resumes once descriptors are free', async (t) => {
    const pid = srv.proc.pid;
    const held = [];
    // The kernel completes handshakes into the listen backlog whether or not the server can
    // accept, so these all connect; the server runs out of descriptors along the way.
    for (let i = 0; i < 100; i++) held.push(await rawConnect(srv));
    await waitFor(() => /accept: .*pausing accepts/u.test(srv.log), 3000, 'the acceptor pause log line');
    const before0 = cpuTicks(pid);
    await sleep(1000);
    const used = cpuTicks(pid) - before0; // clock ticks, 100 per CPU-second
    t.diagnostic(`server CPU while out of descriptors: ${used} ticks in 1 s`);
    assert.ok(used <= 20, `server used ${used} ticks of CPU in 1 s while out of descriptors`);
    const stuck = await request(srv.host, srv.port, 'GET', '/healthz', { timeoutMs: 300 }).catch((e) => e);
    assert.ok(stuck instanceof Error, 'a request was served while every descriptor was taken');
    await closeAll(held);
    await waitFor(async () => {
      try {
        return (await srv.get('/healthz', { timeoutMs: 500 })).status === 200;
      } catch {
        return false;
      }
    }, 5000, 'accepting again');
    await assertServes(srv);
    assert.equal(srv.exitInfo, undefined, 'the server exited');
  });
});
