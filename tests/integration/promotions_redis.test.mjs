// docs/protocol.md, "Promotions", with --redis (docs/scaling.md, "Scheduled publishes" and
// "Reach"): the schedule is the cluster's, in Redis, and survives the node that accepted it; each
// promotion is published once by the cluster, never early; list, cancel and the limit work from any
// node; reach is summed over the nodes; expiry travels in the stream; Redis unreachable is 503.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { arrivedAt, startServer, uid, sleep, waitFor, latestMs, EARLY_MARGIN_MS, freePort, requireCommand } from './harness.mjs';

const REDIS = requireCommand('redis-server');
// A node asks Redis for due promotions at least this often (redis_promotions.hpp): the most a
// promotion is late when no live node expected it.
const POLL_PERIOD_MS = 250;
const LIMIT = 10;

let redis;
let redisPort;
let url;
let a;
let b;

async function startRedis() {
  redis = spawn(REDIS, ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '',
    '--appendonly', 'no'], { stdio: 'ignore' });
  redis.exitedPromise = new Promise((resolve) => redis.on('exit', resolve));
  await waitFor(() => new Promise((resolve) => {
    const s = net.connect(redisPort, '127.0.0.1', () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  }), 5000, 'redis-server listening');
}

const startNode = () => startServer(['--redis', url, '--threads', '2', '--max-scheduled', String(LIMIT)]);

before(async () => {
  redisPort = await freePort();
  url = `redis://127.0.0.1:${redisPort}/0`;
  await startRedis();
  [a, b] = await Promise.all([startNode(), startNode()]);
});

after(async () => {
  await Promise.all([a, b].map((n) => n?.stop()));
  redis?.kill('SIGTERM');
});

function assertError(r, status, code, what) {
  assert.equal(r.status, status, `${what}: ${r.status} ${r.text}`);
  assert.equal(r.json?.error, code, `${what}: ${r.text}`);
  assert.equal(typeof r.json.message, 'string', `${what}: ${r.text}`);
}

const schedule = async (node, body) => {
  const r = await node.admin('POST', '/admin/publish', { body });
  assert.equal(r.status, 202, `schedule ${JSON.stringify(body)} -> ${r.status} ${r.text}`);
  return r.json;
};
const scheduled = async (node) => {
  const r = await node.admin('GET', '/admin/scheduled');
  assert.equal(r.status, 200, r.text);
  return r.json.scheduled;
};

async function killNode(node) {
  node.proc.kill('SIGKILL');
  await node.exited;
  node.stopped = true;
  node.closeClients();
}

test('a promotion outlives the node that accepted it: killed before at, it is published once by the cluster, never early', async (t) => {
  const [ua, ub] = [uid('ka'), uid('kb')];
  const onB = await b.wsHello({ user: ub });
  const r = await schedule(a, { users: [ua, ub], data: { sale: 'flash' }, delay: '1500ms' });
  assert.ok((await scheduled(b)).some((s) => s.scheduled === r.scheduled), 'B lists what A accepted');
  await killNode(a);
  a = await startNode();  // restarted before `at`: a new node, with no memory of the schedule
  const onA = await a.wsHello({ user: ua });
  const got = [];
  for (const c of [onA, onB]) {
    const m = await c.next('message', 4000);
    const late = arrivedAt(m) - r.at;
    assert.deepEqual(m.data, { sale: 'flash' });
    assert.ok(late >= -EARLY_MARGIN_MS, `early by ${-late} ms`);
    assert.ok(late <= latestMs(b, POLL_PERIOD_MS), `late by ${late} ms`);
    assert.ok(m.ts >= r.at, 'ts is the publish time');
    got.push(m.id);
    t.diagnostic(`accepting node killed and restarted: arrived ${late} ms after at`);
  }
  assert.equal(got[0], got[1], 'one publish, one id');
  await Promise.all([onA, onB].map((c) => c.none('message', 600)));  // once
  for (const n of [a, b]) assert.equal((await scheduled(n)).length, 0);
});

test('killed and not restarted: the other node publishes it, once, never early', async (t) => {
  const user = uid('kb');
  const onB = await b.wsHello({ user });
  const r = await schedule(a, { user, data: 'alone', delay: '800ms' });
  await killNode(a);
  const m = await onB.next('message', 4000);
  const late = arrivedAt(m) - r.at;
  assert.equal(m.data, 'alone');
  assert.ok(late >= -EARLY_MARGIN_MS, `early by ${-late} ms`);
  assert.ok(late <= latestMs(b, POLL_PERIOD_MS), `late by ${late} ms`);
  t.diagnostic(`accepting node killed: arrived ${late} ms after at`);
  await onB.none('message', 600);
  assert.equal((await scheduled(b)).length, 0);
  a = await startNode();
});

test('killed at once, due before the other node asked again: published within one poll period', async (t) => {
  const user = uid('kp');
  const onB = await b.wsHello({ user });
  const lateness = [];
  for (let i = 0; i < 3; i++) {
    const r = await schedule(a, { user, data: { i }, delay: '120ms' });
    await killNode(a);  // B learns of it only at its next claim, up to a period after the add
    const m = await onB.next('message', 3000);
    const late = arrivedAt(m) - r.at;
    assert.deepEqual(m.data, { i });
    assert.ok(late >= -EARLY_MARGIN_MS, `early by ${-late} ms`);
    assert.ok(late <= latestMs(b, POLL_PERIOD_MS), `late by ${late} ms`);
    lateness.push(late);
    a = await startNode();
  }
  await onB.none('message', 400);
  t.diagnostic(`accepting node killed at once, due 120 ms after the add: arrived ${lateness.join(', ')} ms after at`);
});

test('each promotion is published once, at its time, whichever node accepted it', async (t) => {
  const [ua, ub] = [uid('oa'), uid('ob')];
  const clients = [await a.wsHello({ user: ua }), await b.wsHello({ user: ub })];
  const runs = [];
  for (let i = 0; i < 4; i++) {
    for (const node of [a, b]) {
      runs.push(await schedule(node, { users: [ua, ub], data: { i, on: node.port }, delay: `${400 + 150 * runs.length}ms` }));
    }
  }
  const lateness = [];
  for (const c of clients) {
    const ids = [];
    for (const r of runs) {
      const m = await c.next('message', 4000);
      const late = arrivedAt(m) - r.at;
      assert.ok(late >= -EARLY_MARGIN_MS, `early by ${-late} ms`);
      assert.ok(late <= latestMs(a, 0), `late by ${late} ms`);
      lateness.push(late);
      ids.push(m.id);
    }
    assert.deepEqual(ids, [...ids].sort((x, y) => x - y), 'in order of at');
    assert.equal(new Set(ids).size, runs.length);
  }
  await Promise.all(clients.map((c) => c.none('message', 400)));
  lateness.sort((x, y) => x - y);
  t.diagnostic(`lateness after at, ms: min ${lateness[0]} median ${lateness[lateness.length >> 1]} max ${lateness.at(-1)} over ${lateness.length}`);
});

test('list and cancel from the other node; the limit counts the cluster\'s waiting promotions', async () => {
  const user = uid('lc');
  const onB = await b.wsHello({ user });
  const now = Date.now();
  const late = await schedule(a, { user, data: 'late', at: now + 60_000 });
  const soon = await schedule(b, { user, data: 'soon', delay: '700ms' });
  const listed = await scheduled(b);
  assert.deepEqual(listed.map((s) => s.scheduled), [soon.scheduled, late.scheduled], 'earliest first');
  assert.deepEqual(listed[1].request, { user, data: 'late', at: late.at });
  assert.equal(listed[0].at, soon.at);
  assert.deepEqual(await scheduled(a), listed);
  // Cancelled on the other node than the one that accepted it: never published by any node.
  assert.equal((await a.admin('DELETE', `/admin/scheduled/${soon.scheduled}`)).status, 200);
  assertError(await b.admin('DELETE', `/admin/scheduled/${soon.scheduled}`), 404, 'not_found', 'again');
  assertError(await b.admin('DELETE', '/admin/scheduled/nope'), 404, 'not_found', 'unknown');
  // The limit is the cluster's: LIMIT - 1 more fit, on either node, then 429 on both.
  const fill = [];
  for (let i = 0; fill.length < LIMIT - 1; i++) fill.push(await schedule([a, b][i % 2], { data: 'fill', delay: '1h' }));
  for (const node of [a, b]) assertError(await node.admin('POST', '/admin/publish', { body: { data: 'over', delay: '1h' } }), 429, 'too_many', 'over');
  assert.equal((await scheduled(a)).length, LIMIT);
  await a.statsUntil((s) => s.messages.scheduled === LIMIT, 3000, 'scheduled in stats');
  for (const s of [late, ...fill]) assert.equal((await b.admin('DELETE', `/admin/scheduled/${s.scheduled}`)).status, 200);
  assert.equal((await scheduled(a)).length, 0);
  await onB.none('message', 900);
});

test('reach is summed over both nodes; expiry travels in the stream to every node', async () => {
  const [ua, ub] = [uid('ra'), uid('rb')];
  const ca = await a.wsHello({ user: ua });
  const cb = await b.wsHello({ user: ub });
  const r = await a.publish({ users: [ua, ub], data: 'reach', ttl: '1200ms' });
  assert.equal(r.recipients, 1, 'recipients in the reply: this node');
  for (const c of [ca, cb]) {
    const m = await c.next('message');
    assert.equal(m.id, r.id);
    c.send({ type: 'ack', id: m.id });
  }
  for (const node of [a, b]) {
    const reach = await waitFor(async () => {
      const x = await node.admin('GET', `/admin/messages/${r.id}`);
      return x.json?.acked === 2 ? x.json : null;
    }, 3000, 'both nodes\' acks counted');
    assert.deepEqual({ ...reach, published: undefined },
      { id: r.id, label: '"reach"', published: undefined, recipients: 2, delivered: 2, acked: 2, expired: false });
  }
  // The list of recent messages sums the nodes the same way.
  const listed = (await b.admin('GET', '/admin/messages?limit=1')).json.messages;
  assert.deepEqual(listed.map((x) => [x.id, x.recipients, x.delivered, x.acked]), [[r.id, 2, 2, 2]]);
  // The ttl, set on node A, expires the message on node B's client too.
  const expired = await cb.next('expired', 3000);
  assert.equal(expired.id, r.id);
  assert.equal((await ca.next('expired', 3000)).id, r.id);
  const resumed = await b.wsHello({ user: ub, sid: 'later', since: r.id - 1 });
  await resumed.none('message', 300);
  const afterExpiry = await b.admin('GET', `/admin/messages/${r.id}`);
  assert.equal(afterExpiry.json.expired, true, afterExpiry.text);
});

test('Redis unreachable: scheduling, listing, cancelling and reach answer 503 unavailable', async () => {
  const r = await a.publish({ data: 'retained' });
  const waiting = await schedule(b, { data: 'waits', delay: '1h' });
  redis.kill('SIGKILL');
  await redis.exitedPromise;
  await waitFor(async () => (await a.get('/healthz')).status === 503 && (await b.get('/healthz')).status === 503,
    5000, 'both nodes see Redis gone');
  assertError(await a.admin('POST', '/admin/publish', { body: { data: 1, delay: '1h' } }), 503, 'unavailable', 'schedule');
  assertError(await b.admin('GET', '/admin/scheduled'), 503, 'unavailable', 'list');
  assertError(await a.admin('DELETE', `/admin/scheduled/${waiting.scheduled}`), 503, 'unavailable', 'cancel');
  assertError(await b.admin('GET', `/admin/messages/${r.id}`), 503, 'unavailable', 'reach');
  assertError(await b.admin('GET', '/admin/messages'), 503, 'unavailable', 'recent messages');
  // Still 404 for a message no node holds, and 400 for bad input: those need no Redis.
  assertError(await a.admin('GET', '/admin/messages/1'), 404, 'not_found', 'unknown message');
  assertError(await a.admin('POST', '/admin/publish', { body: { data: 1, delay: 'soon' } }), 400, 'bad_request', 'bad delay');
  // Back (empty: no persistence): the nodes reconnect and schedule again.
  await startRedis();
  await waitFor(async () => (await a.get('/healthz')).status === 200, 10000, 'redis back');
  const user = uid('back');
  const c = await a.wsHello({ user });
  const again = await schedule(b, { user, data: 'back', delay: '300ms' });
  const m = await c.next('message', 6000);
  assert.ok(arrivedAt(m) >= again.at - EARLY_MARGIN_MS);
  await sleep(0);
});
