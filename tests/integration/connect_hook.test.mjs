// The connect hook (--connect-hook, docs/protocol.md "Connect hook") against a real HTTP backend
// written here, which decides by the user's prefix: admit, refuse, rewrite, never answer, or
// answer nonsense. With client tokens too.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { makeCertificate, sleep, startServer, uid, waitFor } from './harness.mjs';

const asked = []; // every request body the backend received
const raw = []; // and each as it came: { body (the bytes), signature (header) }
let connections = 0; // TCP connections the backend accepted
const backend = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = Buffer.concat(chunks);
    const q = JSON.parse(body.toString());
    asked.push({ ...q, contentType: req.headers['content-type'] });
    raw.push({ user: q.user, body, signature: req.headers['x-ringcast-signature'] });
    const send = (status, body, type = 'application/json') => {
      res.writeHead(status, { 'Content-Type': type });
      res.end(typeof body === 'string' ? body : JSON.stringify(body));
    };
    const [kind] = q.user.split('-'); // users are made by uid(`${kind}-`)
    switch (kind) {
      case 'ok': return send(200, {});
      case 'rewrite': return send(200, { user: `vip-${q.user.slice('rewrite-'.length)}`, channels: ['vip', 'news'] });
      case 'no': return send(403, { why: 'banned' });
      case 'slow': return undefined; // never answers
      case 'down': return send(500, 'oops', 'text/plain');
      case 'junk': return send(200, 'this is not json', 'text/plain');
      case 'types': return send(200, { user: 5, channels: 'vip' });
      case 'badname': return send(200, { user: 'has space' });
      case 'huge': return send(200, { user: 'x', pad: 'y'.repeat(1 << 20) });
      case 'redirect':
        res.writeHead(302, { Location: 'http://127.0.0.1:1/elsewhere' });
        return res.end();
      default: return send(404, {});
    }
  });
});
backend.on('connection', () => { connections += 1; });
await new Promise((r) => backend.listen(0, '127.0.0.1', r));
const HOOK = `http://127.0.0.1:${backend.address().port}/connect`;
after(() => {
  backend.closeAllConnections();
  backend.close();
});

const start = (extra = []) => startServer(['--connect-hook', HOOK, '--hook-timeout', '300ms', ...extra]);

test('200 admits, 403 refuses like a token that does not allow it, and the backend may set user and channels', async () => {
  const srv = await start();
  try {
    const user = uid('ok-');
    const c = await srv.wsHello({ user, sid: 's1', channels: 'a' });
    assert.equal(c.hello.session, `${user}/s1`);
    const q = asked.find((x) => x.user === user);
    assert.deepEqual({ ...q, remote_addr: undefined, headers: undefined, ts: undefined },
      { user, sid: 's1', session: 's1', transport: 'ws', contentType: 'application/json', remote_addr: undefined, headers: undefined,
        origin: null, host: `${srv.host}:${srv.port}`, ts: undefined });
    assert.equal(q.remote_addr, '127.0.0.1');
    assert.equal(typeof q.headers['user-agent'], 'string');

    const refused = await srv.wsRefused({ user: uid('no-'), sid: 's' });
    assert.equal(refused.status, 403);
    assert.equal(refused.json.error, 'forbidden');
    const sse = await srv.sse({ user: uid('no-') });
    assert.equal(sse.status, 403);

    const asking = uid('rewrite-');
    const vip = await srv.wsHello({ user: asking, sid: 'x', channels: 'other' });
    assert.equal(vip.hello.session, `vip-${asking.slice('rewrite-'.length)}/x`);
    const { id } = await srv.publish({ channel: 'vip', data: { hi: 1 } });
    const m = await vip.next((x) => x.type === 'message', 3000);
    assert.equal(m.id, id);
    await srv.publish({ channel: 'other', data: { nope: 1 } });
    await vip.none((x) => x.type === 'message', 300);

    const stats = await srv.stats();
    assert.deepEqual(stats.connect_hook, { admitted: 2, refused: 2, unavailable: 0, bad_answers: 0, overloaded: 0 });
  } finally {
    await srv.stop();
  }
});

test('no answer in time, or a 5xx: 503 with Retry-After, or admitted with --connect-hook-fallback allow', async () => {
  const srv = await start();
  const lenient = await start(['--connect-hook-fallback', 'allow']);
  try {
    const t0 = Date.now();
    const r = await srv.wsRefused({ user: uid('slow-') });
    const waited = Date.now() - t0;
    assert.equal(r.status, 503);
    assert.equal(r.json.error, 'unavailable');
    assert.match(r.headers['retry-after'], /^\d+$/u);
    assert.ok(waited >= 280 && waited < 2000, `refused after ${waited} ms`);
    assert.equal((await srv.wsRefused({ user: uid('down-') })).status, 503);
    // Other clients are not held up while one waits for the backend.
    const waiting = srv.wsRefused({ user: uid('slow-') });
    const t1 = Date.now();
    await srv.wsHello({ user: uid('ok-') });
    assert.ok(Date.now() - t1 < 250, `an admit took ${Date.now() - t1} ms while another waited`);
    await waiting;

    const allowed = await lenient.wsHello({ user: uid('slow-'), sid: 'a' });
    assert.match(allowed.hello.session, /^slow-/u);
    assert.equal((await srv.stats()).connect_hook.unavailable, 3);
    assert.equal((await lenient.stats()).connect_hook.unavailable, 1);
  } finally {
    await srv.stop();
    await lenient.stop();
  }
});

test('a connect whose answer comes after the drain began is refused, not admitted', async () => {
  const srv = await startServer(['--connect-hook', HOOK, '--connect-hook-fallback', 'allow', '--hook-timeout', '1s', '--drain', '3s']);
  const user = uid('slow-');
  const pending = srv.wsRefused({ user });
  await waitFor(() => asked.some((q) => q.user === user), 3000, 'the backend asked');
  const exit = srv.signalAndWait('SIGTERM', 8000);
  const r = await pending;
  assert.equal(r.status, 503);
  assert.equal(r.json.error, 'overloaded');
  assert.equal((await exit).code, 0);
  srv.stopped = true;
});

test('bad backend answers are refused with a log line and a counter, even with fallback allow', async () => {
  const srv = await start(['--connect-hook-fallback', 'allow']);
  try {
    for (const kind of ['junk', 'types', 'badname', 'huge', 'redirect']) {
      const r = await srv.wsRefused({ user: uid(`${kind}-`) });
      assert.equal(r.status, 503, `${kind}: ${r.status} ${r.text}`);
      assert.equal(r.json.error, 'unavailable');
    }
    const stats = await srv.stats();
    assert.equal(stats.connect_hook.bad_answers, 5);
    assert.equal(stats.connect_hook.admitted, 0);
    assert.equal(stats.sessions.total, 0);
    assert.match(srv.log, /connect hook: bad answer .*not JSON/u);
    assert.match(srv.log, /connect hook: bad answer .*status 302/u);
    const metrics = (await srv.get('/metrics')).text;
    assert.match(metrics, /^ringcast_connect_hook_total\{outcome="bad_answer"\} 5$/mu);
  } finally {
    await srv.stop();
  }
});

test('with client tokens the token is checked first, then the backend is asked about its user', async () => {
  const secret = 'connect-hook-secret';
  const b64u = (d) => Buffer.from(d).toString('base64url');
  const token = (claims) => {
    const input = `${b64u(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64u(JSON.stringify(claims))}`;
    return `${input}.${createHmac('sha256', secret).update(input).digest('base64url')}`;
  };
  const srv = await start(['--client-secret', secret]);
  try {
    const before = asked.length;
    const bad = await srv.wsRefused({ token: 'not.a.token' });
    assert.equal(bad.status, 401);
    assert.equal(asked.length, before, 'the backend was asked about a connect with a bad token');
    const user = uid('ok-');
    const c = await srv.wsHello({ token: token({ sub: user, exp: Math.floor(Date.now() / 1000) + 60 }) });
    assert.match(c.hello.session, new RegExp(`^${user}/`, 'u'));
    assert.ok(asked.some((q) => q.user === user));
    const refused = await srv.wsRefused({ token: token({ sub: uid('no-'), exp: Math.floor(Date.now() / 1000) + 60 }) });
    assert.equal(refused.status, 403);
  } finally {
    await srv.stop();
  }
});

// docs/security.md, "Threat model: origins, hooks, pages, admin".
test('with --hook-secret alone, each connect hook POST is signed over its raw body and carries ts, origin and host', async () => {
  const secret = 'connect-signing-secret';
  const srv = await start(['--hook-secret', secret]);
  try {
    const user = uid('ok-');
    const before = Date.now();
    const own = `http://${srv.host}:${srv.port}`;
    const c = await srv.sse({ user, sid: 's' }, { Origin: own });
    assert.equal(c.status, 200);
    const sent = raw.find((x) => x.user === user);
    const expected = `sha256=${createHmac('sha256', secret).update(sent.body).digest('hex')}`;
    assert.equal(sent.signature, expected);
    const q = asked.find((x) => x.user === user);
    assert.equal(q.origin, own);
    assert.equal(q.host, `${srv.host}:${srv.port}`);
    assert.ok(Number.isInteger(q.ts) && q.ts >= before - 1000 && q.ts <= Date.now() + 1000, `ts ${q.ts}`);
    // Without the secret, no signature (as for event batches).
    const plain = await start();
    try {
      const other = uid('ok-');
      await plain.wsHello({ user: other });
      assert.equal(raw.find((x) => x.user === other).signature, undefined);
    } finally {
      await plain.stop();
    }
  } finally {
    await srv.stop();
  }
});

test('connect hook POSTs reuse kept-alive connections to the backend', async () => {
  const srv = await start(['--threads', '1']);
  try {
    await srv.wsHello({ user: uid('ok-') });
    const first = connections;
    for (let i = 0; i < 10; i += 1) {
      const c = await srv.wsHello({ user: uid('ok-') });
      c.terminate();
    }
    assert.ok(connections - first <= 1, `10 connects opened ${connections - first} connections to the backend`);
    assert.equal((await srv.stats()).connect_hook.admitted, 11);
    // A kept-alive connection the backend closed while idle is not used: the next connect is
    // asked over a new one and admitted.
    backend.closeIdleConnections();
    await sleep(200);
    const before = connections;
    (await srv.wsHello({ user: uid('ok-') })).terminate();
    assert.equal(connections, before + 1);
    assert.equal((await srv.stats()).connect_hook.admitted, 12);
  } finally {
    await srv.stop();
  }
});

test('beyond --connect-hook-concurrency in flight a connect gets 503 + Retry-After at once, never the allow fallback', async () => {
  const srv = await startServer(['--connect-hook', HOOK, '--connect-hook-concurrency', '2', '--connect-hook-fallback', 'allow', '--hook-timeout', '1500ms']);
  try {
    // This test's own two (earlier tests asked for `slow-` users too): both must hold their places
    // before the third connect is made.
    const slow = [uid('slow-'), uid('slow-')];
    const waiting = slow.map((user) => srv.wsHello({ user }));
    await waitFor(() => slow.every((user) => asked.some((q) => q.user === user)), 3000, 'both connects asked');
    const t0 = Date.now();
    const r = await srv.wsRefused({ user: uid('ok-') });
    assert.equal(r.status, 503);
    assert.equal(r.json.error, 'unavailable');
    assert.match(r.json.message, /--connect-hook-concurrency/u);
    assert.match(r.headers['retry-after'], /^\d+$/u);
    assert.ok(Date.now() - t0 < 1000, `refused after ${Date.now() - t0} ms`);
    const stats = await srv.stats();
    assert.equal(stats.connect_hook.overloaded, 1);
    assert.equal(stats.connect_hook.admitted, 0);
    assert.match((await srv.get('/metrics')).text, /^ringcast_connect_hook_total\{outcome="overloaded"\} 1$/mu);
    // The two waiting time out into the fallback; their places are free again.
    await Promise.all(waiting);
    await srv.wsHello({ user: uid('ok-') });
    assert.equal((await srv.stats()).connect_hook.admitted, 1);
  } finally {
    await srv.stop();
  }
});

test('over https too, the connect hook keeps its TLS connections alive and signs its POSTs', async () => {
  const { certFile, keyFile, cert } = makeCertificate();
  const { readFileSync } = await import('node:fs');
  let tlsConnections = 0;
  const signatures = [];
  const secure = https.createServer({ cert, key: readFileSync(keyFile) }, (req, res) => {
    signatures.push(req.headers['x-ringcast-signature']);
    req.resume();
    req.on('end', () => { res.writeHead(200, { 'Content-Type': 'application/json' }); res.end('{}'); });
  });
  secure.on('secureConnection', () => { tlsConnections += 1; });
  await new Promise((r) => secure.listen(0, '127.0.0.1', r));
  const srv = await startServer(['--connect-hook', `https://127.0.0.1:${secure.address().port}/c`, '--hook-ca', certFile,
    '--hook-secret', 'tls-secret', '--hook-timeout', '2s', '--threads', '1']);
  try {
    for (let i = 0; i < 5; i += 1) (await srv.wsHello({ user: uid('tls-') })).terminate();
    assert.equal(tlsConnections, 1, `5 connects made ${tlsConnections} TLS connections`);
    assert.equal(signatures.length, 5);
    assert.ok(signatures.every((x) => /^sha256=[0-9a-f]{64}$/u.test(x)), signatures.join(' '));
  } finally {
    await srv.stop();
    secure.closeAllConnections();
    secure.close();
  }
});
