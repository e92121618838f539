// A node whose Redis cannot be used says why at once (docs/scaling.md, "When Redis is down"): the
// log names the address and the cause (connection refused, timeout, auth failed, wrong role)
// within a second of start-up and does not repeat it on every retry; /healthz's 503 and the
// admin API's 503s carry the same reason.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import os from 'node:os';
import { startServer, waitFor, freePort, requireCommand, sleep } from './harness.mjs';

const REDIS = requireCommand('redis-server');
const cleanups = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

async function redisServer(args = []) {
  const port = await freePort();
  const proc = spawn(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', os.tmpdir(), ...args], { stdio: 'ignore' });
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  cleanups.push(async () => { proc.kill('SIGTERM'); await exited; });
  await waitFor(() => new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  }), 5000, 'redis-server listening');
  return port;
}

// Starts a node on `url` and waits for the log line naming `cause`: it must come within a second
// (plus the time to start). Returns the node.
async function nodeSaying(url, cause) {
  const started = Date.now();
  const srv = await startServer(['--redis', url], { healthy: false });
  cleanups.push(() => srv.stop());
  await waitFor(() => cause.test(srv.log), 2500, `log line ${cause}`);
  const took = Date.now() - started;
  assert.ok(took < 2000, `the cause was logged ${took} ms after start:\n${srv.log}`);
  return srv;
}

async function assertUnavailableSaying(srv, cause) {
  const health = await srv.get('/healthz');
  assert.equal(health.status, 503, health.text);
  assert.match(health.json?.message ?? '', cause, `/healthz: ${health.text}`);
  const publish = await srv.admin('POST', '/admin/publish', { body: JSON.stringify({ data: 1 }) });
  assert.equal(publish.status, 503, publish.text);
  assert.match(publish.json.message, cause, `publish: ${publish.text}`);
}

test('nothing listening: "connection refused" with the address, logged once, not on every retry', async () => {
  const port = await freePort();
  const cause = new RegExp(`redis 127\\.0\\.0\\.1:${port}: connection refused`, 'u');
  const srv = await nodeSaying(`redis://127.0.0.1:${port}/0`, cause);
  await assertUnavailableSaying(srv, cause);
  // Retries every 100 ms doubling to 5 s: in 3 s about 6 attempts, one line.
  await sleep(3000);
  const lines = srv.log.split('\n').filter((l) => cause.test(l));
  assert.equal(lines.length, 1, `the same cause was logged ${lines.length} times:\n${srv.log}`);
});

test('a wrong password is "auth failed", never "unreachable"', async () => {
  const port = await redisServer(['--requirepass', 'right-password']);
  const cause = new RegExp(`redis 127\\.0\\.0\\.1:${port}: auth failed \\(WRONGPASS`, 'u');
  const srv = await nodeSaying(`redis://:wrong-password@127.0.0.1:${port}/0`, cause);
  await assertUnavailableSaying(srv, cause);
  assert.doesNotMatch(srv.log, /wrong-password/u, 'the password must not be logged');
});

test('no password for a server that wants one is "auth failed (NOAUTH …)"', async () => {
  const port = await redisServer(['--requirepass', 'right-password']);
  const srv = await nodeSaying(`redis://127.0.0.1:${port}/0`, /auth failed \(NOAUTH/u);
  await assertUnavailableSaying(srv, /auth failed/u);
});

test('a replica is "wrong role" (it would refuse every write)', async () => {
  const master = await redisServer();
  const replica = await redisServer(['--replicaof', '127.0.0.1', String(master)]);
  const cause = new RegExp(`redis 127\\.0\\.0\\.1:${replica}: wrong role: a replica`, 'u');
  const srv = await nodeSaying(`redis://127.0.0.1:${replica}/0`, cause);
  await assertUnavailableSaying(srv, cause);
});

test('a server that accepts and never answers is "timeout" within a second', async () => {
  const held = [];
  const silent = net.createServer((s) => held.push(s));
  await new Promise((resolve) => silent.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => { held.forEach((s) => s.destroy()); silent.close(); });
  const { port } = silent.address();
  const cause = new RegExp(`redis 127\\.0\\.0\\.1:${port}: timeout \\(no answer within 1000 ms\\)`, 'u');
  const srv = await nodeSaying(`redis://127.0.0.1:${port}/0`, cause);
  await assertUnavailableSaying(srv, cause);
});
