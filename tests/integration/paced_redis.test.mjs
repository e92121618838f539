// docs/protocol.md, "Paced publish", with --redis: the spread travels in the shared stream and
// every node paces its own sessions by the same rule, so two nodes spread as one.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { arrivedAt, sleep, startServer, startRedis, uid, waitFor, SCHEDULING_ALLOWANCE_MS } from './harness.mjs';
import { offsetMs } from './pacing_offset.mjs';

const TICK_MS = 50;
const LATE_MS = TICK_MS + SCHEDULING_ALLOWANCE_MS + 150;


let redis;
let nodes = [];
before(async () => {
  redis = await startRedis();
  nodes = await Promise.all([1, 2].map(() =>
    startServer(['--redis', redis.url, '--threads', '2', '--tick-ms', String(TICK_MS),
      '--max-connections-per-ip', '0'])));
});

after(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  await redis?.stop();
});

test('two nodes spread one publish as one: every client at its turn, whichever node it is on', async () => {
  const spreadMs = 3000;
  const tag = uid('rp');
  const users = Array.from({ length: 600 }, (_, i) => `${tag}_${i}`);
  const clients = [];
  for (let i = 0; i < users.length; i += 100) {
    clients.push(...await Promise.all(users.slice(i, i + 100).map((user, k) =>
      nodes[(i + k) % 2].wsHello({ user }))));
  }
  const t0 = Date.now();
  const pub = await nodes[0].publish({ data: 'cluster', spread: '3s' });
  const arrivals = [];
  for (const [i, c] of clients.entries()) {
    const m = await c.next('message', spreadMs + 2000);
    assert.equal(m.id, pub.id);
    const at = arrivedAt(m) - t0;
    const turn = offsetMs(users[i], pub.id, spreadMs);
    assert.ok(at >= turn - 1, `${users[i]} on node ${i % 2}: at ${at} ms, before its turn ${turn}`);
    assert.ok(at <= turn + LATE_MS, `${users[i]} on node ${i % 2}: at ${at} ms, turn ${turn}`);
    arrivals.push(at);
  }
  const bins = new Array(6).fill(0);
  for (const a of arrivals) bins[Math.min(5, Math.floor(a / 500))] += 1;
  assert.ok(Math.max(...bins) <= 1.5 * (arrivals.length / bins.length), `per 0.5 s: ${bins}`);
  await Promise.all(clients.map((c) => c.none('message', 200)));
  for (const c of clients) await c.close();
});

test('a client that moves to the other node before its turn gets it there, at its turn, once', async () => {
  const spreadMs = 3000;
  const users = Array.from({ length: 30 }, () => uid('mv'));
  const first = await Promise.all(users.map((user) => nodes[0].wsHello({ user })));
  const since = first[0].hello.last_id;
  const t0 = Date.now();
  const pub = await nodes[0].publish({ data: 'move', spread: '3s' });
  await sleep(200);
  const movers = users.filter((u) => offsetMs(u, pub.id, spreadMs) > 1000);
  assert.ok(movers.length > 5, 'enough clients with a turn after the move');
  for (const u of movers) await first[users.indexOf(u)].close();
  const moved = await Promise.all(movers.map((user) => nodes[1].wsHello({ user, since })));
  for (const [i, c] of moved.entries()) {
    const m = await c.next('message', spreadMs + 1000);
    const at = arrivedAt(m) - t0;
    const turn = offsetMs(movers[i], pub.id, spreadMs);
    assert.equal(m.id, pub.id);
    assert.ok(at >= turn - 1 && at <= turn + LATE_MS, `${movers[i]}: at ${at} ms, turn ${turn}`);
  }
  await Promise.all(moved.map((c) => c.none('message', 300)));
  for (const u of movers) assert.deepEqual(first[users.indexOf(u)].ids(), [], `${u} got it before moving`);
});
