// Several nodes sharing one stream through Redis (--redis, docs/scaling.md): a real redis-server on a
// free loopback port and three ringcast nodes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startServer, uid, waitFor, assertIncreasing, freePort, requireCommand } from './harness.mjs';

const REDIS = requireCommand('redis-server');


// Append-only file with fsync on every write: a publish Redis acknowledged survives a kill -9.
class RedisServer {
  constructor(port, dir) {
    this.port = port;
    this.dir = dir;
  }

  async start() {
    this.proc = spawn(REDIS, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '',
      '--appendonly', 'yes', '--appendfsync', 'always', '--dir', this.dir], { stdio: 'ignore' });
    this.exited = new Promise((resolve) => this.proc.on('exit', resolve));
    await waitFor(() => new Promise((resolve) => {
      const s = net.connect(this.port, '127.0.0.1', () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    }), 5000, 'redis-server listening');
  }

  async kill(signal = 'SIGKILL') {
    this.proc.kill(signal);
    await this.exited;
  }
}

let redis;
let dir;
let nodes = [];

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ringcast-redis-'));
  redis = new RedisServer(await freePort(), dir);
  await redis.start();
  const url = `redis://127.0.0.1:${redis.port}/0`;
  nodes = await Promise.all([1, 2, 3].map(() =>
    startServer(['--redis', url, '--threads', '2', '--history', '100'])));
});

after(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  await redis?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const received = (client) => client.ids();

test('publishes on every node reach every client on every node once, in id order', async () => {
  const [a, b, c] = nodes;
  const clients = [
    await a.wsHello({ user: uid('r1') }),
    await b.wsHello({ user: uid('r2') }),
    await c.wsHello({ user: uid('r3') }),
    await c.sseHello({ user: uid('r4') }),
  ];
  const published = [];
  for (let i = 0; i < 5; i++) {
    for (const n of nodes) published.push((await n.publish({ data: { i } })).id);
  }
  const sorted = [...published].sort((x, y) => x - y);
  for (const client of clients) {
    await waitFor(() => client.ids().length >= published.length, 5000, 'all messages');
    const ids = received(client);
    assertIncreasing(ids);
    assert.deepEqual(ids, sorted, 'every published id exactly once');
  }
});

test('/admin/stats says which node answered: its address and its id in the cluster', async () => {
  const seen = await Promise.all(nodes.map((n) => n.stats()));
  seen.forEach((s, i) => assert.equal(s.node.address, `${nodes[i].host}:${nodes[i].port}`));
  const ids = seen.map((s) => s.node.id);
  assert.ok(ids.every((id) => typeof id === 'string' && id.length > 0), JSON.stringify(ids));
  assert.equal(new Set(ids).size, nodes.length, `node ids are distinct: ${ids}`);
});

test('a client resumes on a different node without loss, and its session is found there', async () => {
  const [a, b, c] = nodes;
  const user = uid('roam');
  const first = await a.wsHello({ user, sid: 't' });
  const m1 = await a.publish({ user, data: 'one' });
  await first.next((m) => m.type === 'message' && m.id === m1.id);
  await first.close();
  const m2 = await b.publish({ user, data: 'two' });
  const m3 = await b.publish({ data: 'three' });
  const s0 = await c.stats();
  const second = await c.wsHello({ user, sid: 't', since: m1.id });
  assert.equal(second.hello.resumed, true, 'the session held on node a is found on node c');
  const got = await second.inbox.take(2, 'message');
  assert.deepEqual(got.map((m) => m.id), [m2.id, m3.id]);
  assert.equal((await c.stats()).sessions_reused, s0.sessions_reused + 1);
});

test('a second connection on another node replaces the first (close/replaced)', async () => {
  const [a, b] = nodes;
  const user = uid('twice');
  const old = await a.wsHello({ user, sid: 'x' });
  const fresh = await b.wsHello({ user, sid: 'x' });
  assert.equal(fresh.hello.resumed, true);
  assert.deepEqual(await old.next('close', 3000), { type: 'close', reason: 'replaced' });
  await old.waitClosed(3000);
  const m = await a.publish({ user, data: 'still there' });
  await fresh.next((x) => x.type === 'message' && x.id === m.id);
});

test('a kick on one node closes the user on every node', async () => {
  const user = uid('kick');
  const clients = await Promise.all(nodes.map((n, i) => n.wsHello({ user, sid: `s${i}` })));
  const reply = await nodes[1].kick(user);
  assert.equal(reply.kicked, 1, 'kicked counts this node\'s connections');
  for (const client of clients) {
    assert.deepEqual(await client.next('close', 3000), { type: 'close', reason: 'kicked' });
  }
});

test('redis killed and restarted: 503 meanwhile, nothing acknowledged lost, nothing twice', async () => {
  const clients = await Promise.all(nodes.map((n) => n.wsHello({ user: uid('outage') })));
  const acknowledged = [];
  const publishSome = async (count) => {
    for (let i = 0; i < count; i++) {
      const node = nodes[i % nodes.length];
      const r = await node.admin('POST', '/admin/publish', { body: { data: { i } } });
      if (r.status === 200) acknowledged.push(r.json.id);
      else assert.equal(r.status, 503, `publish during outage: ${r.status} ${r.text}`);
    }
  };
  await publishSome(6);
  await redis.kill('SIGKILL');
  await waitFor(async () => (await nodes[0].get('/healthz')).status === 503, 3000, 'healthz 503');
  const refused = await nodes[0].admin('POST', '/admin/publish', { body: { data: 'lost?' } });
  assert.equal(refused.status, 503);
  assert.equal(refused.json.error, 'unavailable');
  // Connected clients are still served: the socket stays open and answers pings.
  await clients[0].sync();
  await redis.start();
  for (const n of nodes) {
    await waitFor(async () => (await n.get('/healthz')).status === 200, 8000, 'redis back');
  }
  await publishSome(6);
  assert.ok(acknowledged.length >= 12, `acknowledged ${acknowledged.length}`);
  // Nothing twice: every node reads the stream in order, so one broadcast marker from each node,
  // published after everything acknowledged, comes after any late copy of an earlier message; then
  // nothing more may arrive for a few ticks (quietMs).
  const markers = [];
  for (const n of nodes) markers.push((await n.publish({ data: 'marker' })).id);
  const expected = [...acknowledged, ...markers].sort((x, y) => x - y);
  for (const client of clients) {
    await waitFor(() => expected.every((id) => client.ids().includes(id)), 5000,
      'every acknowledged message and the markers');
    await client.inbox.none((m) => m?.type === 'message' && !expected.includes(m.id),
      nodes[0].quietMs);
    const ids = client.ids();
    assertIncreasing(ids);
    assert.deepEqual(ids, expected);
  }
  const metrics = (await nodes[0].get('/metrics')).text;
  assert.match(metrics, /ringcast_redis_up 1/);
  assert.match(metrics, /ringcast_redis_reconnects_total [1-9]/);
});

test('promotions across nodes: a list of users and a ttl published on one node hold on every node', async () => {
  const [a, b, c] = nodes;
  const [u1, u2, u3] = [uid('pl1'), uid('pl2'), uid('pl3')];
  const c1 = await b.wsHello({ user: u1 });
  const c2 = await c.sseHello({ user: u2 });
  const c3 = await c.wsHello({ user: u3 });
  const r = await a.publish({ users: [u1, u2], data: 'sale', ttl: '800ms' });
  const m = await c1.next((x) => x.type === 'message' && x.id === r.id);
  assert.equal(m.channel, 'users');
  assert.equal(m.expires, m.ts + 800);
  assert.equal((await c2.next('message')).json.id, r.id);
  await c3.none('message', 300);
  assert.equal((await c1.next('expired', 3000)).id, r.id);
  assert.equal((await c2.next('expired', 3000)).json.id, r.id);
  const resumed = await c.wsHello({ user: u1, sid: 'again', since: r.id - 1 });
  assert.equal(resumed.hello.gap, false);
  await resumed.none('message', 300);
});
