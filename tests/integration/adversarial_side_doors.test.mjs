// The side doors of issue 35 against the binary, each at the default flags unless a test says
// otherwise: WebSocket frames that no limit counted (continuations), TCP connections that counted
// against no address until their first request, IPv6 addresses of one prefix, bodies read before
// the request was authorized, uncapped kernel send buffers, tokens without an expiry.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import net from 'node:net';
import {
  assertServes, rawWebSocket, sleep, startServer, uid, waitFor, wsFrame,
} from './harness.mjs';

// A TCP connection to the server from `localAddress` (any 127.x.y.z is this host), with
// `gone` (true once the server closed it) and `text` (all it received).
function connectFrom(srv, localAddress) {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: srv.host, port: srv.port, localAddress }, () => resolve(s));
    s.text = '';
    s.gone = false;
    s.on('data', (c) => { s.text += c.toString('latin1'); });
    s.on('close', () => { s.gone = true; });
    s.on('error', (e) => { if (!s.connecting) return; reject(e); });
  });
}

// The status of the first response on `s` to `request`, or null if the connection closed first.
async function statusOf(s, request, timeoutMs = 3000) {
  s.write(request);
  await waitFor(() => s.gone || /^HTTP\/1\.1 \d{3}/u.test(s.text), timeoutMs, 'a response');
  const m = /^HTTP\/1\.1 (\d{3})/u.exec(s.text);
  return m ? Number(m[1]) : null;
}

const sseRequest = (user, headers = '') =>
  `GET /sse?user=${user} HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`;

// The close frame a raw WebSocket got, or null if the connection closed without one.
async function closeCode(c, timeoutMs = 5000) {
  const close = await c.frames.next((f) => f.opcode === 8, timeoutMs).catch(() => null);
  return close?.code ?? null;
}

describe('WebSocket frames that make no message (issue 35, 4)', () => {
  test('a stream of empty continuation frames is closed 1009 at the frame bound of a message', async () => {
    const srv = await startServer(['--client-message-rate', '0']);
    try {
      const c = await rawWebSocket(srv, { user: uid('cont') });
      await c.frames.next((f) => f.opcode === 1); // hello
      // 10,000 empty continuations of one text message: main read them all, forever.
      const flood = Buffer.concat([wsFrame(1, '', { fin: false }),
        ...Array.from({ length: 10000 }, () => wsFrame(0, '', { fin: false }))]);
      c.socket.write(flood);
      assert.equal(await closeCode(c), 1009);
      await assertServes(srv);
    } finally {
      await srv.stop();
    }
  });

  test('each frame of a fragmented message costs a --client-message-rate token', async () => {
    // The default rate: 50 a second, bursts of 100. 80 messages of two frames each are 160
    // frames: over the burst, though 80 messages are not.
    const srv = await startServer([]);
    try {
      const c = await rawWebSocket(srv, { user: uid('frag') });
      await c.frames.next((f) => f.opcode === 1); // hello
      const ping = JSON.stringify({ type: 'ping' });
      const messages = Array.from({ length: 80 }, () => Buffer.concat([
        wsFrame(1, ping.slice(0, 5), { fin: false }), wsFrame(0, ping.slice(5))]));
      c.socket.write(Buffer.concat(messages));
      assert.equal(await closeCode(c), 1008);
      const s = await srv.stats();
      assert.equal(s.expirations.message_rate, 1);
      await assertServes(srv);
    } finally {
      await srv.stop();
    }
  });
});

describe('TCP connections count against their address from accept() (issue 35, 5)', () => {
  test('200 idle sockets from one address do not keep a newcomer from another out', async () => {
    // The defaults but for --max-connections 200: main counted a connection against its address
    // only once it asked for a stream, so 200 silent sockets filled the server.
    const srv = await startServer(['--max-connections', '200']);
    const idle = [];
    try {
      for (let i = 0; i < 200; i++) idle.push(await connectFrom(srv, '127.0.0.3'));
      // Over --max-connections-per-ip (64 by default), closed at once.
      await waitFor(() => idle.filter((s) => s.gone).length >= 200 - 64, 3000, 'the extra sockets closed');
      await sleep(200);
      assert.equal(idle.filter((s) => s.gone).length, 200 - 64);
      const newcomer = await connectFrom(srv, '127.0.0.2');
      assert.equal(await statusOf(newcomer, sseRequest(uid('new'))), 200);
      await waitFor(() => newcomer.text.includes('event: hello'), 3000, 'the newcomer\'s hello');
      newcomer.destroy();
      const s = await srv.stats();
      assert.equal(s.client_addresses.refused_connections, 200 - 64);
    } finally {
      for (const s of idle) s.destroy();
      await srv.stop();
    }
  });

  test('from a --trusted-proxy, a connection counts under the X-Forwarded-For client once its head is read', async () => {
    // 3 per address: assertServes below holds a WebSocket and publishes from 127.0.0.1 while the
    // close of its /healthz connection may not have been read yet.
    const srv = await startServer(['--trusted-proxy', '127.0.0.4', '--max-connections-per-ip', '3']);
    const held = [];
    try {
      // The proxy's own connections are not counted at accept: eleven idle ones stay open.
      for (let i = 0; i < 11; i++) held.push(await connectFrom(srv, '127.0.0.4'));
      const via = (client) => `X-Forwarded-For: ${client}\r\n`;
      for (let i = 0; i < 3; i++) {
        const s = held[i];
        assert.equal(await statusOf(s, sseRequest(uid('hog'), via('198.51.100.66'))), 200);
      }
      assert.equal(await statusOf(held[3], sseRequest(uid('hog'), via('198.51.100.66'))), 503);
      assert.match(held[3].text, /--max-connections-per-ip/u);
      assert.equal(await statusOf(held[4], sseRequest(uid('shopper'), via('203.0.113.7'))), 200);
      await sleep(200);
      assert.deepEqual(held.slice(5).map((s) => s.gone), [false, false, false, false, false, false]);
      await assertServes(srv);
    } finally {
      for (const s of held) s.destroy();
      await srv.stop();
    }
  });
});

describe('bodies are judged from the header before they are read (issue 35, 7)', () => {
  test('an admin request without the token gets 401 before its body; a route without a body, 413', async () => {
    const srv = await startServer([]);
    try {
      // Main waited for the 60,000 announced bytes (and buffered them) before looking at the token.
      const head = (target, extra = '') => `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
        `Content-Type: application/json\r\nContent-Length: 60000\r\n${extra}\r\n`;
      for (const [target, extra, want] of [
        ['/admin/publish', '', 401],
        ['/admin/publish', 'Authorization: Bearer wrong\r\n', 401],
        ['/admin/nothing', '', 401],
        ['/healthz', '', 405],
      ]) {
        const s = await connectFrom(srv, '127.0.0.1');
        assert.equal(await statusOf(s, head(target, extra), 2000), want, `${target} ${extra}`);
        await waitFor(() => s.gone, 3000, 'the connection closed: its body is never read');
        s.destroy();
      }
      const get = await connectFrom(srv, '127.0.0.1');
      assert.equal(await statusOf(get, 'GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 60000\r\n\r\n', 2000), 413);
      get.destroy();
      // With the token, the body is read and the request served.
      assert.equal((await srv.publish({ data: { ok: true } })).id > 0, true);
      await assertServes(srv);
    } finally {
      await srv.stop();
    }
  });
});

// The server's socket to the client on `clientPort`, as `ss` shows it: Send-Q (bytes queued) and
// tb (the send buffer's size).
function serverSocket(serverPort, clientPort) {
  const out = execFileSync('ss', ['-tmnH', 'state', 'established', `( sport = :${serverPort} and dport = :${clientPort} )`], { encoding: 'utf8' });
  const m = /^\s*(\d+)\s+(\d+)\s.*skmem:\(([^)]*)\)/msu.exec(out);
  assert.ok(m, `no socket in ss's output: ${out}`);
  const tb = /(?:^|,)tb(\d+)/u.exec(m[3]);
  return { sendQ: Number(m[2]), tb: Number(tb[1]) };
}

describe('a client that does not read (issue 35, 8: --send-buffer)', () => {
  test('pins at most the capped kernel send buffer (256 KiB, doubled by the kernel)', async () => {
    const srv = await startServer(['--write-timeout', '30']);
    try {
      const user = uid('deaf');
      const c = await rawWebSocket(srv, { user });
      await c.frames.next((f) => f.opcode === 1); // hello
      c.socket.pause();
      const blob = 'x'.repeat(60000);
      for (let i = 0; i < 100; i++) await srv.publish({ user, data: { blob } }); // 6 MB
      await sleep(500);
      const { sendQ, tb } = serverSocket(srv.port, c.socket.localPort);
      // Main let the kernel autotune it towards net.ipv4.tcp_wmem's maximum (4 MiB here).
      assert.ok(tb <= 2 * 256 * 1024, `send buffer ${tb} bytes`);
      assert.ok(sendQ <= 2 * 256 * 1024, `${sendQ} bytes queued in the kernel`);
      c.socket.destroy();
    } finally {
      await srv.stop();
    }
  });
});

describe('client tokens without exp (issue 35, 8)', () => {
  const secret = 'side-door-secret';
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const hs256 = (claims) => {
    const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
    return `${head}.${createHmac('sha256', secret).update(head).digest('base64url')}`;
  };

  test('are refused 401 by default, and accepted with --allow-tokens-without-exp', async () => {
    const strict = await startServer(['--client-secret', secret]);
    try {
      const refused = await strict.wsRefused({ token: hs256({ sub: uid('t') }) });
      assert.equal(refused.status, 401);
      const c = await strict.wsHello({ token: hs256({ sub: uid('t'), exp: Math.floor(Date.now() / 1000) + 60 }) });
      c.close();
    } finally {
      await strict.stop();
    }
    const lenient = await startServer(['--client-secret', secret, '--allow-tokens-without-exp']);
    try {
      const c = await lenient.wsHello({ token: hs256({ sub: uid('t') }) });
      c.close();
    } finally {
      await lenient.stop();
    }
  });
});
