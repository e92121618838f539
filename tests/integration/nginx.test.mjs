// deploy/nginx-3-nodes.conf as shipped (only its ports changed to free ones), run by a real nginx
// in front of three nodes sharing a real redis-server: a WebSocket and an SSE client through nginx
// get a publish made through nginx (docs/scaling.md).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { startServer, waitFor, freePort, requireCommand } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const NGINX = requireCommand('nginx');
const REDIS = requireCommand('redis-server');

const listening = (port, what) => waitFor(() => new Promise((resolve) => {
  const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
  s.on('error', () => resolve(false));
}), 5000, what);

let dir;
let redis;
let nginx;
let nodes = [];
let port;
const token = `nginx-${process.pid}`;

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ringcast-nginx-'));
  const redisPort = await freePort();
  redis = spawn(REDIS, ['--port', String(redisPort), '--bind', '127.0.0.1', '--save', '', '--dir', dir], { stdio: 'ignore' });
  await listening(redisPort, 'redis');
  writeFileSync(path.join(dir, 'admin-token'), `${token}\n`);
  nodes = await Promise.all([1, 2, 3].map(() => startServer(['--redis', `redis://127.0.0.1:${redisPort}/0`,
    '--admin-token-file', path.join(dir, 'admin-token')], { tokenVia: 'env' })));
  port = await freePort();
  const conf = readFileSync(path.join(here, '../../deploy/nginx-3-nodes.conf'), 'utf8')
    .replace('server 127.0.0.1:8081 ', `server 127.0.0.1:${nodes[0].port} `)
    .replace('server 127.0.0.1:8082 ', `server 127.0.0.1:${nodes[1].port} `)
    .replace('server 127.0.0.1:8083 ', `server 127.0.0.1:${nodes[2].port} `)
    .replace('listen 127.0.0.1:8080;', `listen 127.0.0.1:${port};`);
  for (const n of nodes) assert.ok(conf.includes(`server 127.0.0.1:${n.port} `), 'ports not replaced');
  assert.ok(conf.includes(`listen 127.0.0.1:${port};`));
  writeFileSync(path.join(dir, 'nginx.conf'), conf);
  nginx = spawn(NGINX, ['-p', `${dir}/`, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  nginx.log = '';
  nginx.stderr.setEncoding('utf8').on('data', (c) => { nginx.log += c; });
  nginx.exited = new Promise((resolve) => nginx.on('exit', resolve));
  await listening(port, `nginx (${nginx.log})`);
});

after(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  if (nginx) { nginx.kill('SIGTERM'); await nginx.exited; }
  if (redis) redis.kill('SIGKILL');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('WebSocket and SSE through nginx get a publish made through nginx', async () => {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/ws?user=via_nginx`);
  const wsMessages = [];
  ws.on('message', (m) => wsMessages.push(JSON.parse(m.toString())));
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  let sse = '';
  const sseReq = http.get(`http://127.0.0.1:${port}/sse?user=via_nginx_sse`, (res) => {
    assert.equal(res.statusCode, 200);
    res.setEncoding('utf8').on('data', (c) => { sse += c; });
  });
  await waitFor(() => wsMessages.some((m) => m.type === 'hello') && sse.includes('hello'), 3000, 'hellos');
  const reply = await fetch(`http://127.0.0.1:${port}/admin/publish`, {
    method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: JSON.stringify({ data: { via: 'nginx' } }),
  });
  const body = await reply.text();
  assert.equal(reply.status, 200, body);
  const { id } = JSON.parse(body);
  await waitFor(() => wsMessages.some((m) => m.type === 'message' && m.id === id), 3000, 'ws message');
  await waitFor(() => sse.includes(`"id":${id}`), 3000, 'sse message');
  ws.close();
  sseReq.destroy();
  assert.equal((await fetch(`http://127.0.0.1:${port}/healthz`)).status, 200);
});

// docs/security.md, "Threat model: origins, hooks, pages, admin": the shipped file lets /admin and
// /admin/... through from its documented range only, answers /admin without a redirect, and passes
// the Host the browser sent, so that a page's own Origin is admitted through it.
test('the admin page and API pass only from the documented range; a page\'s own origin connects through nginx', async () => {
  const page = await fetch(`http://127.0.0.1:${port}/admin`, { redirect: 'manual' });
  assert.equal(page.status, 200, 'the admin page from 127.0.0.1');
  assert.match(await page.text(), /<html/iu);
  const unknown = await fetch(`http://127.0.0.1:${port}/admin/nope`, { redirect: 'manual' });
  assert.equal(unknown.status, 401);

  const own = new WebSocket(`ws://127.0.0.1:${port}/ws?user=own_origin`, { origin: `http://127.0.0.1:${port}` });
  await new Promise((resolve, reject) => { own.once('open', resolve); own.once('error', reject); });
  own.close();

  // The same file without loopback in the range: /admin and /admin/... are refused by nginx.
  const shipped = readFileSync(path.join(dir, 'nginx.conf'), 'utf8');
  assert.ok(shipped.includes('allow 127.0.0.1;'), 'the shipped range names loopback');
  const port2 = await freePort();
  const dir2 = mkdtempSync(path.join(os.tmpdir(), 'ringcast-nginx-deny-'));
  writeFileSync(path.join(dir2, 'nginx.conf'), shipped
    .replace('allow 127.0.0.1;', '').replace(`listen 127.0.0.1:${port};`, `listen 127.0.0.1:${port2};`)
    .replace('pid nginx.pid;', 'pid nginx2.pid;'));
  const other = spawn(NGINX, ['-p', `${dir2}/`, '-c', path.join(dir2, 'nginx.conf'), '-g', 'daemon off;'], { stdio: 'ignore' });
  const exited = new Promise((resolve) => other.on('exit', resolve));
  try {
    await listening(port2, 'the second nginx');
    for (const p of ['/admin', '/admin/', '/admin/stats', '/admin/publish']) {
      const r = await fetch(`http://127.0.0.1:${port2}${p}`, { redirect: 'manual', headers: { Authorization: `Bearer ${token}` } });
      assert.equal(r.status, 403, `${p} from outside the range`);
    }
    assert.equal((await fetch(`http://127.0.0.1:${port2}/healthz`)).status, 200);
  } finally {
    other.kill('SIGTERM');
    await exited;
    rmSync(dir2, { recursive: true, force: true });
  }
});
