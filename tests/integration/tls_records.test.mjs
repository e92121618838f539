// TLS 1.3 after the handshake on ringcast's own record layer (server/tls/record_stream.hpp): the
// clients people use (npm ws, Node's tls, openssl s_client) through it, KeyUpdate from s_client in
// the middle of a stream, a corrupted record that ends only its own connection, and what an idle
// WSS connection costs now that OpenSSL's SSL object is freed after the handshake.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import tls from 'node:tls';
import WebSocket from 'ws';
import {
  SANITIZER, requireCommand, rssKiB, sleep, startServer, uid, waitFor,
} from './harness.mjs';

// A TLS 1.3 connection from Node's tls that sends `request` at once (Node sends it right after its
// Finished, in the same flight), collecting what comes back.
function tlsRequest(srv, request, { socket } = {}) {
  const c = {
    text: '',
    closed: false,
    error: null,
  };
  c.socket = tls.connect({
    host: srv.host, port: srv.port, ca: srv.ca, servername: 'localhost',
    minVersion: 'TLSv1.3', ...(socket ? { socket } : {}),
  });
  c.socket.setEncoding('utf8');
  c.socket.on('data', (d) => { c.text += d; });
  c.socket.on('error', (e) => { c.error = e; });
  c.socket.on('close', () => { c.closed = true; });
  c.socket.write(request);
  return c;
}

const sseRequest = (user) =>
  `GET /sse?user=${user} HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n`;

describe('the record layer, two threads', () => {
  let srv;
  before(async () => {
    srv = await startServer(['--threads', '2', '--idle-timeout', '30'], { tls: true });
  });
  after(async () => { await srv?.stop(); });

  test("Node's tls: a request in the same flight as the client's Finished is answered", async () => {
    const user = uid('flight');
    const c = tlsRequest(srv, sseRequest(user));
    await waitFor(() => c.text.includes('event: hello'), 3000, 'the SSE hello');
    assert.match(c.text, /^HTTP\/1\.1 200 /u);
    assert.equal(c.socket.getProtocol(), 'TLSv1.3');
    const { id } = await srv.publish({ user, data: { n: 1 } });
    await waitFor(() => c.text.includes(`id: ${id}`), 3000, 'the message');
    c.socket.destroy();
  });

  test('npm ws over wss: a message of several records arrives intact, both ways of closing work', async () => {
    const user = uid('wss');
    const a = await srv.wsHello({ user });
    const big = 'y'.repeat(50 * 1024);
    const { id } = await srv.publish({ user, data: { big } });
    const m = await a.next('message');
    assert.equal(m.id, id);
    assert.equal(m.data.big, big);
    await a.close();  // the client's close, then the server's close_notify
    const kicked = uid('wss2');
    const b = await srv.wsHello({ user: kicked });
    await srv.kick(kicked);  // the server's close
    const info = await b.waitClosed();
    assert.ok(info.code >= 1000, `closed with ${info.code}`);
  });

  test('openssl s_client sends KeyUpdate (k and K) mid-stream and still gets the broadcasts', async () => {
    const openssl = requireCommand('openssl');
    const user = uid('keyupdate');
    const proc = spawn(openssl, ['s_client', '-connect', `${srv.host}:${srv.port}`, '-tls1_3',
      '-CAfile', srv.certificate.certFile, '-servername', 'localhost', '-crlf'],
    { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    proc.stdout.setEncoding('utf8').on('data', (d) => { out += d; });
    proc.stderr.setEncoding('utf8').on('data', (d) => { err += d; });
    const exited = new Promise((resolve) => proc.on('exit', resolve));
    try {
      await waitFor(() => out.includes('Verify return code: 0'), 5000, 's_client connected');
      proc.stdin.write(`GET /sse?user=${user} HTTP/1.1\nHost: localhost\nAccept: text/event-stream\n\n`);
      await waitFor(() => out.includes('event: hello'), 3000, 'the SSE hello');
      for (const [i, command] of ['k', 'K', 'K'].entries()) {
        await sleep(50);
        proc.stdin.write(`${command}\n`);  // a line of its own: s_client's KeyUpdate command
        await waitFor(() => err.includes('KEYUPDATE') || out.includes('KEYUPDATE'), 3000, 'KEYUPDATE');
        await sleep(50);
        const { id } = await srv.publish({ user, data: { after: i } });
        await waitFor(() => out.includes(`id: ${id}`), 3000, `the message after KeyUpdate ${command}`);
      }
      // The connection is still the same one: s_client never reconnected.
      assert.equal((out.match(/CONNECTED\(/gu) ?? []).length, 1);
    } finally {
      proc.kill('SIGTERM');
      await exited;
    }
  });

  test('a corrupted record closes only that client (bad_record_mac), others go on', async () => {
    const victim = uid('victim');
    const bystander = uid('bystander');
    const other = await srv.wsHello({ user: bystander });
    const raw = net.connect(srv.port, srv.host);
    await new Promise((resolve) => raw.on('connect', resolve));
    const c = tlsRequest(srv, sseRequest(victim), { socket: raw });
    await waitFor(() => c.text.includes('event: hello'), 3000, 'the victim hello');
    // An application_data record whose tag cannot match, written under the TLS stream.
    raw.write(Buffer.concat([Buffer.from([0x17, 0x03, 0x03, 0x00, 0x20]), Buffer.alloc(32, 0x5a)]));
    await waitFor(() => c.closed, 3000, 'the server closes the victim');
    assert.match(String(c.error?.code ?? c.error?.message ?? ''), /BAD_RECORD_MAC|bad record mac/iu);
    const { id } = await srv.publish({ user: bystander, data: { still: true } });
    assert.equal((await other.next('message')).id, id);
    await other.close();
  });
});

describe('memory of idle WSS connections', () => {
  let srv;
  before(async () => {
    srv = await startServer(['--idle-timeout', '60', '--max-connections-per-ip', '0'], { tls: true });
  });
  after(async () => { await srv?.stop(); });

  // OpenSSL's SSL object is about 14 KB of every idle TLS connection (docs/performance.md
  // section 13); once it is freed after the handshake, an idle WSS connection costs the server
  // a few KB in all. The heap left by the handshakes is given back 1 s after they pause
  // (server/tls/heap_trim.hpp), so the figure is read after that.
  test('400 idle WSS connections cost the server under 8 KB of RSS each', {
    skip: SANITIZER !== 'none' && "a memory bound: a sanitizer's shadow memory inflates RSS",
  }, async () => {
    const count = 400;
    const warm = [];
    for (let i = 0; i < 20; i++) warm.push(await srv.wsHello({ user: uid('warm') }));
    await sleep(1500);
    const before = rssKiB(srv.proc.pid);
    const sockets = [];
    for (let i = 0; i < count; i += 50) {
      const batch = [];
      for (let j = 0; j < 50; j++) {
        batch.push(new Promise((resolve, reject) => {
          const ws = new WebSocket(srv.wsUrl({ user: uid('idle') }), { ca: srv.ca });
          ws.on('message', () => resolve(ws));  // the hello
          ws.on('error', reject);
        }));
      }
      sockets.push(...await Promise.all(batch));
    }
    await sleep(1500);
    const perConnection = ((rssKiB(srv.proc.pid) - before) * 1024) / count;
    console.log(`# RSS per idle WSS connection: ${Math.round(perConnection)} B`);
    assert.ok(perConnection < 8 * 1024, `${Math.round(perConnection)} B per idle WSS connection`);
    for (const ws of sockets) ws.terminate();
    for (const w of warm) w.terminate?.();
  });
});
