// Hostile clients at the edges (issue 25, docs/security.md "Per-address and per-client limits"
// and "Strict HTTP"): request smuggling through ambiguous framing, bodies on the client
// endpoints, one address holding every connection, a WebSocket flooding channel changes, and the
// log under descriptor exhaustion. After each, the server must still answer /healthz and deliver
// a publish.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import {
  assertServes, rawConnect, sleep, startServer, uid, waitFor, OUT_OF_DESCRIPTORS_SKIP,
} from './harness.mjs';

// Writes `text` on a fresh connection and collects everything the server sends until it closes
// the connection (`closed`: true), or until `timeoutMs` (`closed`: false).
async function exchange(srv, text, timeoutMs = 3000) {
  const s = await rawConnect(srv);
  let got = Buffer.alloc(0);
  let timedOut = false;
  s.on('data', (c) => { got = Buffer.concat([got, c]); });
  s.on('error', () => {});
  const closed = new Promise((resolve) => s.on('close', resolve));
  s.write(text);
  const timer = setTimeout(() => { timedOut = true; s.destroy(); }, timeoutMs);
  await closed;
  clearTimeout(timer);
  return { text: got.toString('latin1'), closed: !timedOut };
}

// The status lines of every response in `text` (bodies are JSON or short, never "HTTP/1.1 ").
const statuses = (text) => [...text.matchAll(/HTTP\/1\.1 (\d{3})/gu)].map((m) => Number(m[1]));

describe('strict HTTP', () => {
  let srv;
  before(async () => { srv = await startServer(['--handshake-timeout', '5']); });
  after(async () => { await srv?.stop(); });

  test('Transfer-Encoding: chunked, identity gets 400 and a close: its body is not a second request', async () => {
    const smuggled = 'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n';
    const r = await exchange(srv, 'GET /healthz HTTP/1.1\r\nHost: x\r\n' +
      `Transfer-Encoding: chunked, identity\r\n\r\n${smuggled}`);
    assert.deepEqual(statuses(r.text), [400], r.text);
    assert.match(r.text, /"error":"bad_request"/u);
    assert.match(r.text, /Transfer-Encoding/u);
    assert.equal(r.closed, true, 'the server closes after the 400');
    await assertServes(srv);
  });

  test('any other Transfer-Encoding, two of them, or one with Content-Length: 400 and a close', async () => {
    for (const fields of [
      'Transfer-Encoding: identity\r\n',
      'Transfer-Encoding: gzip, chunked\r\n',
      'Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n',
      'Transfer-Encoding: chunked\r\nContent-Length: 5\r\n',
    ]) {
      const r = await exchange(srv, `POST /admin/publish HTTP/1.1\r\nHost: x\r\n${fields}\r\n` +
        '0\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      assert.deepEqual(statuses(r.text), [400], `${fields}: ${r.text}`);
      assert.equal(r.closed, true, fields);
    }
  });

  test('a chunked body that is exactly "chunked" is still read', async () => {
    const body = JSON.stringify({ user: 'chunky', data: 1 });
    const chunk = `${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const r = await exchange(srv, 'POST /admin/publish HTTP/1.1\r\nHost: x\r\n' +
      `Authorization: Bearer ${srv.token}\r\nContent-Type: application/json\r\n` +
      `Transfer-Encoding: Chunked\r\nConnection: close\r\n\r\n${chunk}`);
    assert.deepEqual(statuses(r.text), [200], r.text);
  });

  test('an obs-fold header line gets 400 and a close', async () => {
    for (const fold of ['X-Folded: a\r\n b\r\n', 'X-Folded:\r\n\tb\r\n']) {
      const r = await exchange(srv, `GET /healthz HTTP/1.1\r\nHost: x\r\n${fold}\r\n`);
      assert.deepEqual(statuses(r.text), [400], JSON.stringify(fold) + r.text);
      assert.match(r.text, /obs-fold/u);
      assert.equal(r.closed, true);
    }
    await assertServes(srv);
  });

  test('GET /ws, /sse, /poll with a body are refused from the headers, before any body byte', async () => {
    const s0 = await srv.stats();
    const upgrade = 'Upgrade: websocket\r\nConnection: Upgrade\r\n' +
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n';
    for (const [target, extra] of [
      ['/ws?user=body1', `${upgrade}Content-Length: 60000\r\n`],
      ['/sse?user=body2', 'Content-Length: 60000\r\n'],
      ['/poll?user=body3', 'Content-Length: 1\r\n'],
      ['/poll?user=body4', 'Transfer-Encoding: chunked\r\n'],
    ]) {
      // The body is never sent: the answer must come from the headers alone, well before
      // --handshake-timeout (5 s) would end the wait for it.
      const r = await exchange(srv, `GET ${target} HTTP/1.1\r\nHost: x\r\n${extra}\r\n`, 2000);
      assert.deepEqual(statuses(r.text), [400], `${target}: ${r.text}`);
      assert.match(r.text, /has no body/u);
      assert.equal(r.closed, true, target);
    }
    const s = await srv.stats();
    assert.equal(s.sessions.total, s0.sessions.total, 'nothing was admitted');
    await assertServes(srv);
  });
});

// The value of one sample of /metrics.
async function metric(srv, name) {
  const text = (await srv.get('/metrics')).text;
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  assert.ok(line, `no ${name} in /metrics`);
  return Number(line.slice(name.length + 1));
}

// Every TCP connection counts against its address (issue 35): from accept() when it comes straight
// from the client (adversarial_side_doors.test.mjs), from its request head under the
// X-Forwarded-For client when it comes through a --trusted-proxy, as here.
describe('one address behind a trusted proxy holding its --max-connections-per-ip 5', () => {
  let srv;
  before(async () => {
    srv = await startServer(['--max-connections', '40', '--max-connections-per-ip', '5',
      '--trusted-proxy', '127.0.0.0/8', '--threads', '2']);
  });
  after(async () => { await srv?.stop(); });

  test('its sixth connection gets 503 overloaded, whatever it asks for; other addresses are served', async () => {
    const via = { 'X-Forwarded-For': '198.51.100.66' };
    const mine = [];
    for (let i = 0; i < 5; i++) mine.push(await srv.sseHello({ user: uid('hog') }, via));
    const sse = await srv.sse({ user: uid('hog') }, via);
    assert.equal(sse.status, 503);
    assert.equal(sse.json?.error, 'overloaded');
    assert.match(sse.body, /--max-connections-per-ip/u);
    const poll = await srv.poll({ user: uid('hog') }, { headers: via });
    assert.equal(poll.status, 503);
    assert.equal((await srv.get('/healthz', { headers: via })).status, 503);
    // A forged first hop does not help: the last hop the proxy did not vouch for is the client.
    const forged = await srv.sse({ user: uid('hog') }, { 'X-Forwarded-For': '192.0.2.1, 198.51.100.66' });
    assert.equal(forged.status, 503);
    assert.equal(await metric(srv, 'ringcast_client_address_refused_total{limit="connections"}'), 4);
    // Others, through the same proxy, get in; so does the proxy's own /healthz.
    const other = await srv.sseHello({ user: uid('shopper') }, { 'X-Forwarded-For': '203.0.113.7' });
    for (let i = 0; i < 10; i++) assert.equal((await srv.get('/healthz')).status, 200);
    // One of the hog's connections ends: it may open one again.
    mine.pop().close();
    await waitFor(async () => {
      const c = await srv.sse({ user: uid('hog') }, via);
      if (c.status === 200) { mine.push(c); return true; }
      c.close();
      return false;
    }, 3000, 'a place of the address freed');
    other.close();
    for (const c of mine) c.close();
    await assertServes(srv);
  });

  test('a keep-alive connection counts between its polls too, until it closes', async () => {
    const user = uid('poller');
    const headers = { 'X-Forwarded-For': '198.51.100.4' };
    const agent = new http.Agent({ keepAlive: true, maxSockets: 5 });
    const held = Array.from({ length: 5 }, (_, i) => srv.poll({ user, sid: `s${i}` }, { headers, agent }));
    await waitFor(async () => (await srv.stats()).connections.poll >= 5, 3000, 'five held polls');
    assert.equal((await srv.poll({ user, sid: 'x' }, { headers })).status, 503);
    await srv.publish({ user, data: 'release' });
    for (const r of await Promise.all(held)) assert.equal(r.status, 200);
    // Answered, the five keep-alive connections are open still, and still the address's.
    assert.equal((await srv.poll({ user, sid: 'y' }, { headers })).status, 503);
    agent.destroy();
    // Only the stats request's own connection (the proxy's, no X-Forwarded-For) is left.
    await waitFor(async () => (await srv.stats()).client_addresses.tracked <= 1, 3000, 'the address freed');
    const again = Array.from({ length: 5 }, (_, i) => srv.poll({ user, sid: `t${i}` }, { headers }));
    await waitFor(async () => (await srv.stats()).connections.poll >= 5, 3000, 'five held polls again');
    await srv.publish({ user, data: 'release' });
    for (const r of await Promise.all(again)) assert.equal(r.status, 200);
  });
});

describe('--connect-rate-per-ip 5', () => {
  let srv;
  before(async () => { srv = await startServer(['--connect-rate-per-ip', '5']); });
  after(async () => { await srv?.stop(); });

  test('beyond a burst of 5 connects, 429 too_many with Retry-After; a second later, served again', async () => {
    const user = uid('rapid');
    const results = [];
    for (let i = 0; i < 8; i++) {
      const c = await srv.sse({ user, sid: `s${i}` });
      results.push({ status: c.status, json: c.json, retry: c.headers['retry-after'] });
      c.close();
    }
    assert.deepEqual(results.map((r) => r.status), [200, 200, 200, 200, 200, 429, 429, 429]);
    assert.equal(results[5].json?.error, 'too_many');
    assert.ok(Number(results[5].retry) >= 1, `Retry-After ${results[5].retry}`);
    // Not the client endpoints.
    for (let i = 0; i < 10; i++) assert.equal((await srv.get('/healthz')).status, 200);
    assert.equal(await metric(srv, 'ringcast_client_address_refused_total{limit="rate"}'), 3);
    await sleep(Number(results[5].retry) * 1000);
    const later = await srv.sseHello({ user, sid: 'later' });
    later.close();
    // The warnings are throttled: one line for the three refusals within the second.
    const lines = srv.log.split('\n').filter((l) => /over --connect-rate-per-ip/u.test(l));
    assert.equal(lines.length, 1, lines.join('\n'));
  });
});

// A backend recording the events POSTed to --hook-url.
async function startBackend() {
  const events = [];
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      events.push(...JSON.parse(Buffer.concat(chunks).toString()).events);
      res.writeHead(200);
      res.end('ok');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}/events`,
    events,
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('10,000 subscribe/unsubscribe frames on one WebSocket', () => {
  test('at the default --client-message-rate the client is closed 1008, and the hook gets a handful of events', async () => {
    const backend = await startBackend();
    const srv = await startServer(['--hook-url', backend.url, '--hook-flush', '100ms']);
    try {
      const user = uid('flood');
      const c = await srv.wsHello({ user, sid: 'f' });
      for (let i = 0; i < 5000; i++) {
        c.send({ type: 'subscribe', channels: ['flood'] });
        c.send({ type: 'unsubscribe', channels: ['flood'] });
      }
      const closed = await c.waitClosed(5000);
      assert.equal(closed.code, 1008, JSON.stringify(closed));
      await waitFor(() => backend.events.some((e) => e.type === 'disconnect' && e.user === user), 5000,
        'the disconnect event');
      const mine = backend.events.filter((e) => e.user === user);
      assert.equal(mine[0].type, 'connect');
      assert.equal(mine.at(-1).type, 'disconnect');
      assert.ok(mine.length <= 6, `${mine.length} events: ${JSON.stringify(mine.map((e) => e.type))}`);
      const s = await srv.stats();
      assert.equal(s.expirations.message_rate, 1);
      await assertServes(srv);
    } finally {
      await srv.stop();
      await backend.close();
    }
  });

  test('without a rate limit, the changes undone before the flush reach the hook as nothing', async () => {
    const backend = await startBackend();
    const srv = await startServer(['--hook-url', backend.url, '--hook-flush', '200ms',
      '--client-message-rate', '0']);
    try {
      const user = uid('flood');
      const c = await srv.wsHello({ user, sid: 'f' });
      for (let i = 0; i < 5000; i++) {
        c.send({ type: 'subscribe', channels: ['flood'] });
        c.send({ type: 'unsubscribe', channels: ['flood'] });
      }
      c.send({ type: 'subscribe', channels: ['kept'] });
      await c.sync(10000);
      assert.ok(c.isOpen());
      await c.close();
      await waitFor(() => backend.events.some((e) => e.type === 'disconnect' && e.user === user), 5000,
        'the disconnect event');
      const mine = backend.events.filter((e) => e.user === user);
      const changes = mine.filter((e) => e.type === 'subscribe' || e.type === 'unsubscribe');
      assert.ok(changes.length <= 4, `${changes.length} channel events for 10,001 frames`);
      // The net change of the session is what the backend learns: "kept" added, "flood" not.
      const added = new Set(changes.filter((e) => e.type === 'subscribe').flatMap((e) => e.channels));
      const removed = new Set(changes.filter((e) => e.type === 'unsubscribe').flatMap((e) => e.channels));
      assert.ok(added.has('kept'));
      assert.ok(!added.has('flood') || removed.has('flood'), JSON.stringify(changes));
    } finally {
      await srv.stop();
      await backend.close();
    }
  });
});

describe('out of file descriptors (ulimit -n 64)', { skip: OUT_OF_DESCRIPTORS_SKIP }, () => {
  test('the acceptor\'s warning is logged at most once a second, with a count', async () => {
    const srv = await startServer(['--threads', '1', '--handshake-timeout', '30',
      '--max-connections-per-ip', '0'], { maxFiles: 64 });
    const held = [];
    try {
      for (let i = 0; i < 100; i++) held.push(await rawConnect(srv));
      await waitFor(() => /accept: .*pausing accepts/u.test(srv.log), 3000, 'the first warning');
      await sleep(3000);
      const lines = srv.log.split('\n').filter((l) => /accept: .*pausing accepts/u.test(l));
      // Every 100 ms before: some 30 lines in these 3 s.
      assert.ok(lines.length >= 2 && lines.length <= 5, `${lines.length} lines:\n${lines.join('\n')}`);
      assert.match(lines.at(-1), /\(\d+ times in the last \d+\.\d s\)/u);
    } finally {
      await Promise.all(held.map((s) => new Promise((resolve) => {
        s.on('close', resolve);
        s.destroy();
      })));
      await srv.stop();
    }
  });
});
