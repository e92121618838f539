// The Origin policy of /ws, /sse and /poll (docs/protocol.md "Origin", docs/security.md "Threat
// model: origins, hooks, pages, admin"): a page of another site must not open a connection with
// its visitor's cookies (cross-site WebSocket hijacking). Admitted: no Origin (not a browser), the
// server's own origin, or one --allowed-origins lists; anything else 403 `origin`.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import WebSocket from 'ws';
import { startServer, query, runBinary, uid } from './harness.mjs';

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
  for (const origin of ['https://evil.example', `http://evil.example:${srv.port}`, 'null', `https://127.0.0.1:${srv.port}.evil.example`, 'not an origin']) {
    const got = await statuses(srv, origin);
    assert.deepEqual({ ws: got.ws, sse: got.sse, poll: got.poll }, { ws: 403, sse: 403, poll: 403 }, origin);
    assert.equal(got.refusal.json.error, 'origin', origin);
  }
  const stats = await srv.stats();
  assert.equal(stats.sessions.total, 0, 'a refused connect made a session');
  assert.deepEqual(stats.refused, { origin: 15, host: 0 });
  assert.match((await srv.get('/metrics')).text, /^ringcast_refused_total\{reason="origin"\} 15$/mu);
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
