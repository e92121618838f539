// The Origin policy of /ws, /sse and /poll (docs/protocol.md "Origin", docs/security.md "Threat
// model: origins, hooks, pages, admin"): a page of another site must not open a connection with
// its visitor's cookies (cross-site WebSocket hijacking). Admitted: no Origin (not a browser), the
// server's own origin, or one --allowed-origins lists; anything else 403 `origin`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import WebSocket from 'ws';
import { startServer, query, request, runBinary, sleep, uid, waitFor } from './harness.mjs';

let srv;
before(async () => { srv = await startServer([]); });
after(async () => { await srv?.stop(); });

// Opens /ws with this Origin (none: no header): 'open', or the refusal's status and body.
function wsWithOrigin(server, origin, params = { user: uid() }) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://${server.host}:${server.port}/ws${query(params)}`,
      { perMessageDeflate: false, handshakeTimeout: 5000, ...(origin === undefined ? {} : { origin }) });
    ws.on('open', () => { ws.terminate(); resolve({ status: 101 }); });
    ws.on('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => { ws.terminate(); resolve({ status: res.statusCode, json: JSON.parse(text) }); });
    });
    ws.on('error', (e) => { if (!e.message.includes('Unexpected server response')) reject(e); });
  });
}

// The status of a GET as soon as its headers arrive ('held' when none come within 400 ms: a
// long-poll being held), with the JSON body of a refusal.
function statusOf(server, pathAndQuery, headers) {
  return new Promise((resolve, reject) => {
    const req = http.get({ host: server.host, port: server.port, path: pathAndQuery, headers, agent: false }, (res) => {
      if (res.statusCode !== 403) {
        clearTimeout(timer);
        req.destroy();
        resolve({ status: res.statusCode });
        return;
      }
      let text = '';
      res.on('data', (c) => { text += c; });
      res.on('end', () => { clearTimeout(timer); resolve({ status: 403, json: JSON.parse(text) }); });
    });
    const timer = setTimeout(() => { req.destroy(); resolve({ status: 'held' }); }, 400);
    req.on('error', (e) => { if (!req.destroyed || e.code !== 'ECONNRESET') reject(e); });
  });
}

// Every client endpoint with this Origin: the statuses of /ws, /sse and /poll.
async function statuses(server, origin) {
  const h = origin === undefined ? {} : { Origin: origin };
  const ws = await wsWithOrigin(server, origin);
  const sse = await statusOf(server, `/sse${query({ user: uid() })}`, h);
  const poll = await statusOf(server, `/poll${query({ user: uid() })}`, h);
  return { ws: ws.status, sse: sse.status, poll: poll.status, refusal: [ws, sse, poll].find((r) => r.status === 403) };
}

test('a page of another site is refused 403 origin on /ws, /sse and /poll; Origin: null too', async () => {
  // https://HOST:PORT is the server's host and port over another scheme: another origin.
  for (const origin of ['https://evil.example', `http://evil.example:${srv.port}`, 'null', `https://127.0.0.1:${srv.port}.evil.example`, 'not an origin', `https://${srv.host}:${srv.port}`]) {
    const got = await statuses(srv, origin);
    assert.deepEqual({ ws: got.ws, sse: got.sse, poll: got.poll }, { ws: 403, sse: 403, poll: 403 }, origin);
    assert.equal(got.refusal.json.error, 'origin', origin);
  }
  const stats = await srv.stats();
  assert.equal(stats.sessions.total, 0, 'a refused connect made a session');
  assert.deepEqual(stats.refused, { origin: 18, host: 0 });
  assert.match((await srv.get('/metrics')).text, /^ringcast_refused_total\{reason="origin"\} 18$/mu);
});

test('no Origin (not a browser) and the server\'s own origin are admitted', async () => {
  assert.deepEqual(await statuses(srv, undefined).then(({ ws, sse, poll }) => ({ ws, sse, poll })), { ws: 101, sse: 200, poll: 'held' });
  const own = `http://${srv.host}:${srv.port}`;
  assert.deepEqual(await statuses(srv, own).then(({ ws, sse, poll }) => ({ ws, sse, poll })), { ws: 101, sse: 200, poll: 'held' });
  // Another port of the same host is another origin.
  assert.equal((await wsWithOrigin(srv, `http://${srv.host}:${srv.port + 1}`)).status, 403);
});

test('--allowed-origins admits the origins it lists, a *.name wildcard its subdomains only, * any', async () => {
  const listed = await startServer(['--allowed-origins', 'https://shop.example, https://*.cdn.example:8443']);
  const any = await startServer(['--allowed-origins', '*']);
  try {
    const admitted = ['https://shop.example', 'https://SHOP.example:443', 'https://a.cdn.example:8443', 'https://a.b.cdn.example:8443'];
    const refused = ['http://shop.example', 'https://shop.example:8443', 'https://cdn.example:8443', 'https://a.cdn.example', 'https://evilcdn.example:8443', 'null'];
    for (const origin of admitted) assert.equal((await wsWithOrigin(listed, origin)).status, 101, origin);
    for (const origin of refused) assert.equal((await wsWithOrigin(listed, origin)).status, 403, origin);
    assert.equal((await wsWithOrigin(any, 'https://evil.example')).status, 101);
  } finally {
    await listed.stop();
    await any.stop();
  }
});

test('a malformed --allowed-origins stops start-up with exit 2 naming the flag', async () => {
  for (const bad of ['shop.example', 'ftp://shop.example', 'https://shop.example/path', 'https://*']) {
    const r = await runBinary(['--allowed-origins', bad]);
    assert.equal(r.code, 2, `${bad}: ${r.err}`);
    assert.match(r.err, /--allowed-origins/u, bad);
  }
});

test('a foreign page is refused 403 origin before the method, the query, the token and the connect rate are looked at', async () => {
  const strict = await startServer(['--client-secret', 'origin-first-secret', '--connect-rate-per-ip', '1']);
  try {
    const evil = { Origin: 'https://evil.example' };
    const at = (method, path, headers) => request(strict.host, strict.port, method, path, { headers });
    // What a page without a token, with a wrong method or without a user gets otherwise: 401, 405.
    assert.equal((await at('GET', '/poll?user=u', {})).status, 401);
    for (const [method, path] of [['GET', '/poll?user=u'], ['GET', '/sse'], ['POST', '/poll?user=u'], ['DELETE', '/ws'], ['GET', '/ws?user=u&sid=bad/sid']]) {
      const r = await at(method, path, evil);
      assert.equal(r.status, 403, `${method} ${path}: ${r.text}`);
      assert.equal(r.json.error, 'origin', `${method} ${path}`);
    }
    // Over --connect-rate-per-ip (1 a second) the foreign page still hears about its origin.
    const rates = await Promise.all([1, 2, 3].map(() => at('GET', '/poll?user=u', {})));
    assert.ok(rates.some((r) => r.status === 429), rates.map((r) => r.status).join());
    assert.equal((await at('GET', '/poll?user=u', evil)).status, 403);
  } finally {
    await strict.stop();
  }
});

test('each refused origin is logged naming the origin and --allowed-origins, at most one line a second', async () => {
  const listed = await startServer(['--allowed-origins', 'https://www.shop.example']);
  try {
    const refusedLines = () => listed.log.split('\n').filter((l) => l.includes('refused 403 a page of origin https://evil.example'));
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) =>
      request(listed.host, listed.port, 'GET', `/sse${query({ user: `u${i}` })}`, { headers: { Origin: 'https://evil.example' } })));
    const burstEnded = Date.now();
    assert.ok(burst.every((r) => r.status === 403));
    await waitFor(() => refusedLines().length >= 1, 3000, 'the refusal line');
    await sleep(200); // any further line would have been written by now
    assert.equal(refusedLines().length, 1, refusedLines().join('\n'));
    assert.match(refusedLines()[0], /--allowed-origins \(https:\/\/www\.shop\.example\)/u);
    assert.match(refusedLines()[0], /^.*\/sse: /u);
    // A second later the next refusal is logged, with how many there were meanwhile.
    await sleep(Math.max(0, 1100 - (Date.now() - burstEnded)));
    assert.equal((await request(listed.host, listed.port, 'GET', '/poll?user=v', { headers: { Origin: 'https://evil.example' } })).status, 403);
    await waitFor(() => refusedLines().length === 2, 3000, 'the second line');
    assert.match(refusedLines()[1], /\(20 times in the last \d+\.\d s\)/u);
    // The listed page passes (to the query's 400) and nothing is logged for it.
    assert.equal((await request(listed.host, listed.port, 'GET', '/poll?user=bad/name', { headers: { Origin: 'https://www.shop.example' } })).status, 400);
    assert.ok(!listed.log.includes('origin https://www.shop.example:'));
  } finally {
    await listed.stop();
  }
});

test('a same-origin page behind a TLS proxy connects when the proxy is trusted and says https', async () => {
  const proxied = await startServer(['--trusted-proxy', '127.0.0.1']);
  const untrusted = await startServer([]);
  try {
    // Past the Origin check a bad query is a 400: the quickest sign that the page was admitted.
    const page = (server, proto) => request(server.host, server.port, 'GET', '/poll?user=bad/name', {
      headers: { Origin: 'https://push.example', Host: 'push.example', ...(proto ? { 'X-Forwarded-Proto': proto } : {}) },
    });
    assert.equal((await page(proxied, 'https')).status, 400);
    assert.equal((await page(proxied, undefined)).status, 403); // the proxy did not say: http
    assert.equal((await page(proxied, 'http')).status, 403);
    assert.equal((await page(untrusted, 'https')).status, 403); // anybody could say so
  } finally {
    await proxied.stop();
    await untrusted.stop();
  }
});

test('two Host headers are refused 400 before the Origin or the route', async () => {
  const { connect } = await import('node:net');
  const socket = connect(srv.port, srv.host);
  let text = '';
  socket.setEncoding('utf8').on('data', (c) => { text += c; });
  const closed = new Promise((resolve) => { socket.on('close', resolve); });
  socket.write(`GET /ws?user=u HTTP/1.1\r\nHost: ${srv.host}:${srv.port}\r\nHost: evil.example\r\nOrigin: http://evil.example\r\n\r\n`);
  await closed;
  assert.match(text, /^HTTP\/1\.1 400 /u);
  assert.match(text, /more than one Host header/u);
});
