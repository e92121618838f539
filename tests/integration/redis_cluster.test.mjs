// Redis Cluster (docs/scaling.md#cluster): three real redis-server primaries in cluster mode on
// free loopback ports, one ringcast node pointed at each. Every key is under the hash tag
// {ringcast}, so they live in one slot on one primary; the nodes pointed at the other two are
// answered MOVED and reconnect to it. Publishes, resume across nodes and session take-over work.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, uid, waitFor, sleep, assertIncreasing, freePort, requireCommand } from './harness.mjs';

const REDIS = requireCommand('redis-server');
const CLI = requireCommand('redis-cli');

const cli = (port, ...args) =>
  execFileSync(CLI, ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8', timeout: 10000 }).trim();

let dir;
const primaries = [];
let nodes = [];

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ringcast-cluster-'));
  for (let i = 0; i < 3; i++) {
    // The cluster bus listens on port + 10000: pick ports whose bus port is free too.
    let port;
    for (;;) {
      port = await freePort();
      if (port + 10000 < 65536) break;
    }
    const proc = spawn(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--save', '',
      '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir,
      '--appendfilename', `p${i}.aof`, '--appenddirname', `p${i}-aof`,
      '--cluster-enabled', 'yes', '--cluster-config-file', path.join(dir, `nodes-${i}.conf`)],
    { stdio: 'ignore' });
    proc.exited = new Promise((resolve) => proc.on('exit', resolve));
    primaries.push({ port, proc });
  }
  for (const p of primaries) {
    await waitFor(() => { try { return cli(p.port, 'PING') === 'PONG'; } catch { return false; } }, 5000, 'primary up');
  }
  execFileSync(CLI, ['--cluster', 'create', ...primaries.map((p) => `127.0.0.1:${p.port}`),
    '--cluster-replicas', '0', '--cluster-yes'], { stdio: 'ignore', timeout: 20000 });
  for (const p of primaries) {
    await waitFor(() => /cluster_state:ok/.test(cli(p.port, 'CLUSTER', 'INFO')), 10000, 'cluster ok', 100);
  }
  nodes = await Promise.all(primaries.map((p) =>
    startServer(['--redis', `redis://127.0.0.1:${p.port}`, '--threads', '2', '--history', '100'])));
  for (const n of nodes) await waitFor(async () => (await n.get('/healthz')).status === 200, 8000, 'node on redis');
});

after(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  for (const p of primaries) {
    p.proc.kill('SIGKILL');
    await p.proc.exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('all keys in the {ringcast} slot; the nodes on other primaries follow MOVED to it', async () => {
  const slot = Number(cli(primaries[0].port, 'CLUSTER', 'KEYSLOT', '{ringcast}:stream'));
  assert.equal(Number(cli(primaries[0].port, 'CLUSTER', 'KEYSLOT', '{ringcast}:last_id')), slot);
  assert.equal(Number(cli(primaries[0].port, 'CLUSTER', 'KEYSLOT', '{ringcast}:session:u/s')), slot);
  const moved = nodes.filter((n) => /MOVED\); reconnecting there/.test(n.log));
  assert.equal(moved.length, 2, `nodes that followed MOVED: ${moved.length}`);
});

test('publishes on every node reach clients on every node once, in id order', async () => {
  const clients = await Promise.all(nodes.map((n) => n.wsHello({ user: uid('c') })));
  const published = [];
  for (let i = 0; i < 9; i++) published.push((await nodes[i % 3].publish({ data: { i } })).id);
  for (const c of clients) {
    await waitFor(() => published.every((id) => c.ids().includes(id)), 5000, 'every message');
    await sleep(100);
    assertIncreasing(c.ids());
    assert.deepEqual(c.ids(), published);
  }
  // The stream is on the primary that holds the slot.
  const holder = primaries.find((p) => { try { return Number(cli(p.port, 'XLEN', '{ringcast}:stream')) >= 9; } catch { return false; } });
  assert.ok(holder, 'no primary holds {ringcast}:stream');
});

test('a session moves to another node and is told it resumed; the old connection is replaced', async () => {
  const user = uid('mv');
  const first = await nodes[0].wsHello({ user, sid: 'sid1' });
  const second = await nodes[2].wsHello({ user, sid: 'sid1' });
  assert.equal(second.hello.resumed, true);
  assert.deepEqual(await first.next('close', 3000), { type: 'close', reason: 'replaced' });
});

test('a promotion scheduled on one node is listed on another and published once, on the slot\'s primary', async () => {
  const users = nodes.map(() => uid('cs'));
  const clients = await Promise.all(nodes.map((n, i) => n.wsHello({ user: users[i] })));
  const r = await nodes[1].admin('POST', '/admin/publish', { body: { users, data: 'cluster', delay: '500ms' } });
  assert.equal(r.status, 202, r.text);
  const listed = await nodes[2].admin('GET', '/admin/scheduled');
  assert.ok(listed.json.scheduled.some((s) => s.scheduled === r.json.scheduled), listed.text);
  const ids = [];
  for (const c of clients) {
    const m = await c.next('message', 4000);
    assert.equal(m.data, 'cluster');
    assert.ok(m.ts >= r.json.at);
    ids.push(m.id);
  }
  assert.equal(new Set(ids).size, 1);
  await Promise.all(clients.map((c) => c.none('message', 400)));
  const slot = Number(cli(primaries[0].port, 'CLUSTER', 'KEYSLOT', '{ringcast}:scheduled'));
  assert.equal(slot, Number(cli(primaries[0].port, 'CLUSTER', 'KEYSLOT', '{ringcast}:stream')));
});
