// docs/protocol.md, "Draining": on SIGTERM/SIGINT the server drains and exits 0.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rawConnect, startServer, uid } from './harness.mjs';

test('SIGTERM: every client gets reconnect/shutdown with retry_ms in [0, drain], exit 0 in time', async () => {
  const srv = await startServer(['--drain', '1', '--poll-timeout', '20']);
  try {
    const last = (await srv.publish({ data: 'before' })).id;
    const ws = await Promise.all(Array.from({ length: 5 }, () => srv.wsHello({ user: uid('dr') })));
    const sse = await srv.sseHello({ user: uid('drs') });
    const poll = srv.poll({ user: uid('drp') });
    await srv.statsUntil((s) => s.connections.poll === 1, 3000, 'poll held');

    const exit = srv.stop({ closeClients: false, timeoutMs: 1000 + 2500 });
    const msgs = await Promise.all(ws.map((c) => c.next('reconnect', 2500)));
    for (const m of msgs) {
      assert.equal(m.reason, 'shutdown');
      assert.ok(Number.isInteger(m.retry_ms) && m.retry_ms >= 0 && m.retry_ms <= 1000, JSON.stringify(m));
      assert.equal(m.last_id, last);
    }
    const retries = msgs.map((m) => m.retry_ms);
    assert.ok(new Set(retries).size > 1, `retry_ms not spread over the drain: ${retries}`);

    const p = await poll;
    assert.equal(p.status, 200);
    assert.equal(p.json.type, 'reconnect', p.text);
    assert.equal(p.json.reason, 'shutdown');
    assert.ok(p.json.retry_ms >= 0 && p.json.retry_ms <= 1000);

    const ev = await sse.next('reconnect', 2500);
    assert.equal(ev.event, 'reconnect');
    assert.equal(ev.json.reason, 'shutdown');
    assert.match(ev.retry ?? '', /^\d+$/, 'reconnect event without a retry: field');
    assert.ok(Number(ev.retry) >= 0 && Number(ev.retry) <= 1000);

    const r = await exit; // asserts exit status 0
    assert.ok(r.ms <= 1000 + 2500, `exit took ${r.ms} ms`);
    await Promise.all(ws.map((c) => c.waitClosed(1000)));
    await sse.waitEnded(1000);
  } finally {
    if (!srv.stopped) await srv.stop();
  }
});

test('SIGINT drains too and exits 0', async () => {
  const srv = await startServer(['--drain', '1']);
  const c = await srv.wsHello({ user: uid('int') });
  srv.stopped = true;
  const exit = srv.signalAndWait('SIGINT', 4000);
  const m = await c.next('reconnect', 2500);
  assert.equal(m.reason, 'shutdown');
  const r = await exit;
  assert.deepEqual([r.code, r.signal], [0, null], srv.logTail());
});

test('SIGTERM as soon as the server answers /healthz: still a drain and exit 0 (5 times)', async () => {
  // A supervisor may stop a server right after its readiness check: the signal must already be
  // handled by then, not kill the process.
  for (let i = 0; i < 5; i++) {
    const srv = await startServer(['--drain', '1']);
    const r = await srv.stop();
    assert.ok(r.ms < 1000 + 1500, `took ${r.ms} ms`);
  }
});

test('SIGTERM: a request half-sent before it is read to its end and answered 503; a connection with nothing sent closes at once', async () => {
  const srv = await startServer(['--drain', '2', '--handshake-timeout', '10']);
  try {
    const half = await rawConnect(srv);
    const silent = await rawConnect(srv);
    const received = [];
    half.on('data', (d) => received.push(d));
    half.write('POST /admin/publish HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await srv.statsUntil((s) => s.connections.total >= 2, 3000, 'both connections accepted');
    const silentClosed = new Promise((resolve) => silent.on('close', resolve));
    const halfClosed = new Promise((resolve) => half.on('close', resolve));
    silent.on('error', () => {});
    half.on('error', () => {});

    const exit = srv.stop({ closeClients: false, timeoutMs: 2000 + 2500 });
    await silentClosed;  // nothing of a request: closed by the drain, not kept for 10 s
    half.end(`Authorization: Bearer ${srv.token}\r\nContent-Type: application/json\r\n` +
      'Content-Length: 13\r\n\r\n{"data":"x"}\n');
    await halfClosed;
    const text = Buffer.concat(received).toString();
    assert.match(text, /^HTTP\/1\.1 503 /u, text);
    assert.match(text, /\r\nRetry-After: 2\r\n/iu, text);
    assert.match(text, /\r\nConnection: close\r\n/iu, text);
    const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
    assert.deepEqual(body, { error: 'overloaded', message: 'the server is draining; retry in 2 s' });
    await exit;  // exit 0, asserted by stop()
  } finally {
    if (!srv.stopped) await srv.stop();
  }
});
