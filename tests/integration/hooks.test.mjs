// Event hooks (docs/protocol.md, "Event hooks"; docs/operations.md, "Event hooks") against a real
// HTTP backend written here: signed batches, failback retry on the back-off schedule while the
// backend answers 500, once each by event_id in order per session, a backend that never answers
// not slowing delivery, the queue bound, the drain flush, and the metrics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { makeCertificate, startServer, sleep, uid, waitFor } from './harness.mjs';

// A backend recording every POST: { at, status, body, signature, events }. `answer(req)` returns
// the status to answer with, or null to never answer. With `tls` ({ certFile, keyFile }): https.
async function startBackend(answer, tls = null) {
  const requests = [];
  const hanging = new Set();
  const handler = (req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      const record = {
        at: Date.now(),
        body,
        signature: req.headers['x-ringcast-signature'],
        contentType: req.headers['content-type'],
        events: JSON.parse(body).events,
      };
      record.status = answer(record, requests.length);
      requests.push(record);
      if (record.status === null) {
        hanging.add(res);
        return;
      }
      res.writeHead(record.status, { 'Content-Type': 'text/plain' });
      res.end(record.status === 200 ? 'ok' : 'not now');
    });
  };
  const server = tls
    ? https.createServer({ cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) }, handler)
    : http.createServer(handler);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `${tls ? 'https' : 'http'}://127.0.0.1:${server.address().port}/events`,
    requests,
    accepted: () => requests.filter((r) => r.status === 200).flatMap((r) => r.events),
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

const sign = (secret, body) => `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;

test('events arrive signed, once each and in order per session, retried on the back-off while the backend answers 500', async () => {
  const secret = 'shop-secret';
  // The first three POSTs fail; from the fourth on the backend accepts.
  const backend = await startBackend((_r, n) => (n < 3 ? 500 : 200));
  const srv = await startServer(['--threads', '1', '--hook-url', backend.url, '--hook-secret', secret,
    '--hook-flush', '100ms']);
  try {
    const alice = uid('alice'), bob = uid('bob');
    const a = await srv.wsHello({ user: alice, sid: 's1', channels: 'news' });
    a.send({ type: 'subscribe', channels: ['sport'] });
    a.send({ type: 'unsubscribe', channels: ['news'] });
    const b = await srv.sseHello({ user: bob, sid: 's2' });
    await sleep(100);
    await a.close();
    b.close();
    // Later events join the queue behind the failed batch while it waits for its retries.
    await sleep(1500);
    const c = await srv.wsHello({ user: alice, sid: 's3' });
    await c.close();

    await waitFor(() => backend.accepted().filter((e) => e.type === 'disconnect').length >= 3, 15000,
      'three disconnects accepted');
    // Every POST is signed and JSON.
    for (const r of backend.requests) {
      assert.equal(r.contentType, 'application/json');
      assert.equal(r.signature, sign(secret, r.body));
    }
    // Retry spacing: 1 s, 2 s, 4 s after each failure, each up to 20 % later (plus a tick and
    // scheduling), never earlier.
    const gaps = [1, 2, 3].map((i) => backend.requests[i].at - backend.requests[i - 1].at);
    console.log(`retry gaps after 500s: ${gaps.join(', ')} ms`);
    [1000, 2000, 4000].forEach((nominal, i) => {
      assert.ok(gaps[i] >= nominal - 20, `retry ${i + 1} after ${gaps[i]} ms, before ${nominal} ms`);
      assert.ok(gaps[i] <= nominal * 1.2 + 250, `retry ${i + 1} after ${gaps[i]} ms`);
    });
    // The failed POSTs started with the same first event: retried, not dropped or reordered.
    assert.deepEqual(backend.requests.slice(0, 4).map((r) => r.events[0].event_id),
      Array(4).fill(backend.requests[0].events[0].event_id));

    const accepted = backend.accepted();
    const ids = accepted.map((e) => e.event_id);
    assert.equal(new Set(ids).size, ids.length, `an event accepted twice: ${ids}`);
    const of = (session) => accepted.filter((e) => e.session === session)
      .map((e) => (e.type === 'disconnect' ? `disconnect:${e.reason}` : e.channels ? `${e.type}:${e.channels}` : e.type));
    assert.deepEqual(of(`${alice}/s1`), ['connect:news', 'subscribe:sport', 'unsubscribe:news', 'disconnect:closed']);
    assert.deepEqual(of(`${bob}/s2`), ['connect:', 'disconnect:closed']);
    assert.deepEqual(of(`${alice}/s3`), ['connect:', 'disconnect:closed']);
    const connect = accepted.find((e) => e.session === `${bob}/s2`);
    assert.equal(connect.transport, 'sse');
    assert.equal(connect.sid, 's2', 'sid as in the connect hook');
    assert.equal(connect.resumed, false);
    assert.equal(typeof connect.node, 'string');
    assert.ok(Math.abs(connect.ts - Date.now()) < 30000, `ts ${connect.ts}`);

    const stats = await srv.stats();
    assert.equal(stats.hooks.failed, 3);
    assert.equal(stats.hooks.retried, 3);
    assert.equal(stats.hooks.backend_up, true);
    assert.equal(stats.hooks.sent, accepted.length);
    const metrics = (await srv.get('/metrics')).text;
    assert.match(metrics, new RegExp(`^ringcast_hook_events_sent_total ${accepted.length}$`, 'mu'));
    assert.match(metrics, /^ringcast_hook_retries_total 3$/mu);
    assert.match(metrics, /^ringcast_hook_backend_up 1$/mu);
  } finally {
    await srv.stop();
    await backend.close();
  }
});

// Publishes `n` messages to a WebSocket client while `churn` connects and disconnects others
// (each one two hook events); returns the publish-to-arrival times in ms, sorted.
async function deliveryLatencies(srv, n) {
  const user = uid('reader');
  const reader = await srv.wsHello({ user, sid: 'r' });
  const latencies = [];
  let churning = true;
  const churn = (async () => {
    for (let i = 0; churning; ++i) {
      const c = await srv.wsHello({ user: uid('churn'), sid: String(i) });
      await c.close();
    }
  })();
  for (let i = 0; i < n; ++i) {
    const sent = Date.now();
    const { id } = await srv.publish({ user, data: { i } });
    const m = await reader.next((x) => x.type === 'message' && x.id === id, 5000);
    assert.equal(m.data.i, i);
    latencies.push(Date.now() - sent);
    await sleep(10);
  }
  churning = false;
  await churn;
  return latencies.sort((x, y) => x - y);
}

test('a backend that never answers does not slow delivery or connects, and the queue bound holds', async () => {
  const backend = await startBackend(() => null);
  const flags = ['--threads', '1'];
  const base = await startServer(flags);
  const hooked = await startServer([...flags, '--hook-url', backend.url, '--hook-timeout', '2s',
    '--hook-batch', '10', '--hook-queue', '50', '--hook-flush', '50ms']);
  try {
    const without = await deliveryLatencies(base, 60);
    const connectStart = Date.now();
    const probe = await hooked.wsHello({ user: uid('probe'), sid: 'p' });
    const connectMs = Date.now() - connectStart;
    await probe.close();
    const withDead = await deliveryLatencies(hooked, 60);
    const pct = (l, p) => l[Math.min(l.length - 1, Math.floor(l.length * p))];
    console.log(`publish-to-delivery ms, no hooks: p50 ${pct(without, 0.5)} p90 ${pct(without, 0.9)} max ${without.at(-1)}; `
      + `dead backend: p50 ${pct(withDead, 0.5)} p90 ${pct(withDead, 0.9)} max ${withDead.at(-1)}; connect ${connectMs} ms`);
    // A delivery or connect that waited on the backend would take the 2 s hook timeout.
    assert.ok(withDead.at(-1) < 1000, `a delivery took ${withDead.at(-1)} ms`);
    assert.ok(connectMs < 1000, `a connect took ${connectMs} ms`);
    assert.ok(pct(withDead, 0.5) <= pct(without, 0.5) + 20, 'median delivery slower with a dead backend');

    // Once the first POST has timed out, the backend counts as down.
    const stats = await hooked.statsUntil((s) => s.hooks.dropped > 0 && s.hooks.failed > 0, 5000,
      'events dropped and a POST timed out');
    assert.ok(stats.hooks.queued <= 50, `queued ${stats.hooks.queued}`);
    assert.equal(stats.hooks.sent, 0);
    assert.equal(stats.hooks.backend_up, false);
    assert.ok(backend.requests.length >= 1);
    assert.ok(backend.requests.every((r) => r.events.length <= 10));
  } finally {
    await base.stop();
    await hooked.stop();
    await backend.close();
  }
});

test('drain flushes the waiting events, the disconnects included, before exiting', async () => {
  const backend = await startBackend(() => 200);
  // A flush interval far beyond the drain: only the drain can send these.
  const srv = await startServer(['--hook-url', backend.url, '--hook-flush', '30s', '--drain', '1s']);
  const user = uid('drained');
  await srv.wsHello({ user, sid: 'x' });
  await sleep(100);
  assert.equal(backend.requests.length, 0);
  await srv.stop({ closeClients: false });
  const types = backend.accepted().filter((e) => e.user === user).map((e) => `${e.type}:${e.reason ?? ''}`);
  assert.deepEqual(types, ['connect:', 'disconnect:shutdown']);
  await backend.close();
});

test('a backend that is down while draining is one warning, not one per retry', async () => {
  const backend = await startBackend(() => 500);
  const srv = await startServer(['--hook-url', backend.url, '--threads', '1', '--hook-flush', '50ms', '--drain', '2s']);
  await srv.wsHello({ user: uid('down'), sid: 'x' });
  await waitFor(() => backend.requests.length > 0, 3000, 'a first POST');
  await srv.stop({ closeClients: false });
  const warnings = srv.log.split('\n').filter((l) => /warn hook: POST .* answered 500/u.test(l));
  assert.ok(backend.requests.length >= 5, `only ${backend.requests.length} POSTs: nothing to coalesce`);
  assert.ok(warnings.length <= 2, `${warnings.length} warnings for ${backend.requests.length} POSTs:\n${warnings.join('\n')}`);
  await backend.close();
});

test('an https backend is verified against --hook-ca', async () => {
  const cert = makeCertificate();
  const backend = await startBackend(() => 200, cert);
  const trusting = await startServer(['--hook-url', backend.url, '--hook-ca', cert.certFile, '--hook-flush', '50ms']);
  const other = makeCertificate(); // a CA that did not sign the backend's certificate
  const distrusting = await startServer(['--hook-url', backend.url, '--hook-ca', other.certFile, '--hook-flush', '50ms']);
  try {
    const user = uid('secure');
    await (await trusting.wsHello({ user, sid: 'a' })).close();
    await waitFor(() => backend.accepted().some((e) => e.user === user && e.type === 'disconnect'), 5000, 'events over https');
    const stranger = uid('stranger');
    await (await distrusting.wsHello({ user: stranger, sid: 'b' })).close();
    const stats = await distrusting.statsUntil((s) => s.hooks.failed > 0, 5000, 'a POST refused by TLS');
    assert.equal(stats.hooks.sent, 0);
    assert.ok(!backend.requests.some((r) => r.events.some((e) => e.user === stranger)));
    assert.match(distrusting.log, /hook: POST https:\/\/127\.0\.0\.1:\d+\/events TLS handshake failed/u);
  } finally {
    await trusting.stop();
    await distrusting.stop();
    await backend.close();
  }
});

test('hook flags are checked', async () => {
  const { runBinary } = await import('./harness.mjs');
  for (const [args, pattern] of [
    [['--hook-url', 'ftp://x/'], /--hook-url: expected an http:\/\/ or https:\/\/ URL/u],
    [['--hook-url', 'http://x/', '--hook-batch', '0'], /--hook-batch/u],
    [['--hook-secret', 's'], /--hook-secret: needs --hook-url/u],
    [['--hook-url', 'http://x/', '--hook-timeout', '0'], /--hook-timeout: must be more than 0/u],
  ]) {
    const r = await runBinary(args);
    assert.equal(r.code, 2, `${args}: ${r.err}`);
    assert.match(r.err, pattern);
  }
});
