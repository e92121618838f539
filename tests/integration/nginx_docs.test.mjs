// docs/security.md's nginx example ("Behind a TLS proxy") run as written by a real nginx in front of
// a node: only the upstream's port, the listen address, the certificate's paths and, for the first
// run, the allowed network (127.0.0.1 for 10.0.0.0/8) are changed. The pages, /ws, /sse, /poll and
// a publish go through it; /admin (the page) and /admin/… (the API) answer an allowed address and
// are 403 to any other — /admin is never redirected to /admin/, which is no page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { BIN, startServer, waitFor, freePort, requireCommand, makeCertificate, request } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const NGINX = requireCommand('nginx');

// The one ```nginx block of docs/security.md.
const example = (() => {
  const doc = readFileSync(path.join(here, '../../docs/security.md'), 'utf8');
  const blocks = [...doc.matchAll(/```nginx\n([\s\S]*?)```/gu)].map((m) => m[1]);
  assert.equal(blocks.length, 1, 'docs/security.md has one nginx example');
  return blocks[0];
})();

let srv;
let certificate;
const proxies = [];

before(async () => {
  // The example's X-Forwarded-Proto is read from a trusted proxy only (docs/security.md).
  srv = await startServer(['--trusted-proxy', '127.0.0.1']);
  certificate = makeCertificate();
});

after(async () => {
  for (const p of proxies) { p.proc.kill('SIGTERM'); await p.exited; rmSync(p.dir, { recursive: true, force: true }); }
  await srv?.stop();
});

// nginx with the example inside a minimal main context (pid, logs and temp files in its own dir).
async function proxy({ allowLoopback }) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ringcast-nginx-docs-'));
  const port = await freePort();
  let http = example
    .replace('server 127.0.0.1:8080;', `server 127.0.0.1:${srv.port};`)
    .replace('listen 443 ssl http2;', `listen 127.0.0.1:${port} ssl http2;`)
    .replace(/ssl_certificate +\S+;/u, `ssl_certificate ${certificate.certFile};`)
    .replace(/ssl_certificate_key +\S+;/u, `ssl_certificate_key ${certificate.keyFile};`);
  if (allowLoopback) http = http.replaceAll('allow 10.0.0.0/8;', 'allow 127.0.0.1;');
  assert.ok(http.includes(`server 127.0.0.1:${srv.port};`) && http.includes(`listen 127.0.0.1:${port} ssl`), 'substitutions');
  const conf = `pid nginx.pid;\nerror_log stderr warn;\nevents {}\nhttp {\naccess_log off;\n` +
    'client_body_temp_path client_body_temp;\nproxy_temp_path proxy_temp;\nfastcgi_temp_path fastcgi_temp;\n' +
    `uwsgi_temp_path uwsgi_temp;\nscgi_temp_path scgi_temp;\n${http}}\n`;
  writeFileSync(path.join(dir, 'nginx.conf'), conf);
  const proc = spawn(NGINX, ['-p', `${dir}/`, '-c', path.join(dir, 'nginx.conf'), '-g', 'daemon off;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  const p = { proc, dir, port, log: '', exited: new Promise((resolve) => proc.on('exit', resolve)) };
  proc.stderr.setEncoding('utf8').on('data', (c) => { p.log += c; });
  proxies.push(p);
  await waitFor(() => new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  }), 5000, `nginx listening (${p.log})`);
  p.get = (pathAndQuery, opts = {}) => request('127.0.0.1', port, opts.method ?? 'GET', pathAndQuery, { ca: certificate.cert, ...opts });
  return p;
}

test('through the example: pages, WebSocket, SSE, long-poll and publish; /admin and its API from an allowed address', async () => {
  const p = await proxy({ allowLoopback: true });
  const page = await p.get('/');
  assert.equal(page.status, 200, page.text);
  const admin = await p.get('/admin');
  assert.equal(admin.status, 200, `/admin: ${admin.status} ${admin.headers.location ?? ''} ${admin.text.slice(0, 200)}`);
  assert.match(admin.text, /<html/iu);

  const ws = new WebSocket(`wss://127.0.0.1:${p.port}/ws?user=docs_ws`, { ca: certificate.cert });
  const wsMessages = [];
  ws.on('message', (m) => wsMessages.push(JSON.parse(m.toString())));
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject); });
  await waitFor(() => wsMessages.some((m) => m.type === 'hello'), 3000, 'ws hello');
  const sse = await import('node:https').then(({ default: https }) => new Promise((resolve, reject) => {
    const req = https.get(`https://127.0.0.1:${p.port}/sse?user=docs_sse`, { ca: certificate.cert }, (res) => {
      const s = { req, res, text: '' };
      res.setEncoding('utf8').on('data', (c) => { s.text += c; });
      resolve(s);
    });
    req.on('error', reject);
  }));
  assert.equal(sse.res.statusCode, 200);
  await waitFor(() => sse.text.includes('hello'), 3000, 'sse hello');

  const published = await p.get('/admin/publish', { method: 'POST', headers: { Authorization: `Bearer ${srv.token}` }, body: { data: { via: 'docs nginx' } } });
  assert.equal(published.status, 200, published.text);
  const { id } = published.json;
  await waitFor(() => wsMessages.some((m) => m.type === 'message' && m.id === id), 3000, 'ws message');
  await waitFor(() => sse.text.includes(`"id":${id}`), 3000, 'sse message');
  const poll = await p.get(`/poll?user=docs_poll&since=${id - 1}`);
  assert.equal(poll.status, 200, poll.text);
  assert.ok(poll.json.messages.some((m) => m.id === id), poll.text);
  const stats = await p.get('/admin/stats', { headers: { Authorization: `Bearer ${srv.token}` } });
  assert.equal(stats.status, 200, stats.text);
  ws.close();
  sse.req.destroy();
});

test('as written (allow 10.0.0.0/8), /admin and the admin API are 403 to anyone else, not a redirect', async () => {
  const p = await proxy({ allowLoopback: false });
  for (const where of ['/admin', '/admin/stats', '/admin/publish']) {
    const r = await p.get(where, { headers: { Authorization: `Bearer ${srv.token}` } });
    assert.equal(r.status, 403, `${where}: ${r.status} ${r.headers.location ?? ''}`);
  }
  assert.equal((await p.get('/')).status, 200);
});

// docs/scaling.md's three nodes, both blocks run as written by bash, with mechanical substitutions
// only: free ports for 6379, 8081-8083 and 8080 (in a copy of deploy/nginx-3-nodes.conf), a temp
// directory for /tmp/ringcast-nginx, this build's binary for build-release/server/ringcast. The
// nodes serve a publish through nginx; Redis writes nothing into the directory the block runs in
// (the checkout); the stop block stops nginx, Redis and the nodes. deploy/nginx-3-nodes.conf
// listens on loopback only.
test('docs/scaling.md, as written: three nodes behind nginx, Redis\'s files outside the checkout, and the stop block stops it all', async () => {
  const REDIS = requireCommand('redis-server');
  const doc = readFileSync(path.join(here, '../../docs/scaling.md'), 'utf8');
  const head = doc.slice(0, doc.indexOf('\n## '));
  const [start, stop] = [...head.matchAll(/```sh\n([\s\S]*?)```/gu)].map((m) => m[1]);
  assert.ok(start && stop, 'docs/scaling.md opens with a start block and a stop block');
  const shipped = readFileSync(path.join(here, '../../deploy/nginx-3-nodes.conf'), 'utf8');
  assert.match(shipped, /^\s*listen 127\.0\.0\.1:8080;$/mu, 'deploy/nginx-3-nodes.conf listens on loopback only');
  assert.doesNotMatch(shipped, /^\s*listen (?!127\.0\.0\.1:)/mu);

  const dir = mkdtempSync(path.join(os.tmpdir(), 'ringcast-scaling-docs-'));
  const checkout = path.join(dir, 'checkout'); // where the blocks run: the newcomer's checkout
  mkdirSync(checkout);
  const [redisPort, front, ...nodePorts] = await Promise.all([0, 1, 2, 3, 4].map(() => freePort()));
  let conf = shipped.replace('listen 127.0.0.1:8080;', `listen 127.0.0.1:${front};`);
  nodePorts.forEach((p, i) => { conf = conf.replace(`server 127.0.0.1:${8081 + i} `, `server 127.0.0.1:${p} `); });
  writeFileSync(path.join(dir, 'nginx-3-nodes.conf'), conf);
  const substitute = (block) => {
    let text = block.replaceAll('build-release/server/ringcast', BIN)
      .replaceAll('127.0.0.1:6379', `127.0.0.1:${redisPort}`)
      .replace(/^redis-server /mu, `redis-server --port ${redisPort} `)
      .replaceAll('/tmp/ringcast-nginx', path.join(dir, 'nginx'))
      .replaceAll('"$PWD/deploy/nginx-3-nodes.conf"', path.join(dir, 'nginx-3-nodes.conf'));
    nodePorts.forEach((p, i) => { text = text.replaceAll(`127.0.0.1:${8081 + i}`, `127.0.0.1:${p}`); });
    return text;
  };
  const script = `${substitute(start)}\nwhile [ ! -e ${dir}/stop-now ]; do sleep 0.1; done\n${substitute(stop)}\n`;
  assert.ok(!/\bringcast --listen/u.test(script.replaceAll(BIN, '')), `a bare ringcast command is left:\n${script}`);
  const env = { ...process.env, PATH: `${path.dirname(REDIS)}:${path.dirname(NGINX)}:${process.env.PATH}` };
  const shell = spawn('bash', ['-c', script], { cwd: checkout, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  shell.stdout.setEncoding('utf8').on('data', (c) => { out += c; });
  shell.stderr.setEncoding('utf8').on('data', (c) => { out += c; });
  const exited = new Promise((resolve) => shell.on('exit', (code) => resolve(code)));
  const up = (port) => new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
    s.on('error', () => resolve(false));
  });
  try {
    await waitFor(async () => (await Promise.all([front, redisPort, ...nodePorts].map(up))).every(Boolean), 10000, `nginx, Redis and the nodes (${out})`);
    // Each node connects to Redis with a back-off: the first publishes may find one not yet there.
    let published;
    await waitFor(async () => {
      published = await request('127.0.0.1', front, 'POST', '/admin/publish', { headers: { Authorization: 'Bearer s3cret' }, body: { data: { via: 'scaling.md' } } });
      return published.status === 200;
    }, 10000, 'a publish through nginx');
    assert.equal(published.status, 200, published.text);
    assert.deepEqual(readdirSync(checkout), [], 'Redis (or anything) wrote into the checkout');
  } finally {
    writeFileSync(path.join(dir, 'stop-now'), '');
    const code = await Promise.race([exited, new Promise((resolve) => { setTimeout(() => resolve('still running'), 20000); })]);
    if (code === 'still running') shell.kill('SIGKILL');
    assert.equal(code, 0, `the stop block did not end it all: ${code}\n${out}`);
    for (const port of [front, redisPort, ...nodePorts]) assert.equal(await up(port), false, `port ${port} still served after the stop block`);
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a page of the server\'s own https origin is admitted through the example on /ws, /sse and /poll; its http twin is not', async () => {
  const p = await proxy({ allowLoopback: false });
  // `Host $host` drops the port: the page's origin is the default port's. Past the Origin check a
  // bad query is a 400; a foreign origin is a 403.
  for (const where of ['/ws', '/sse', '/poll']) {
    const own = await p.get(`${where}?user=bad/name`, { headers: { Origin: 'https://127.0.0.1' } });
    assert.equal(own.status, 400, `${where}: ${own.text}`);
    const plain = await p.get(`${where}?user=bad/name`, { headers: { Origin: 'http://127.0.0.1' } });
    assert.equal(plain.status, 403, `${where}: ${plain.text}`);
    assert.equal(plain.json.error, 'origin');
  }
});
