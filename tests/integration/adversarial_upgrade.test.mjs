// An upgrade in place moves references, not copies (issue 35; docs/operations.md, "Upgrading"):
// a queued message that many connections hold is written once into the state and shared again by
// the new process, so clients that never read cannot make the state, or the new process, as large
// as the bytes queued to all of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, rawConnect, rssKiB, sleep, startServer, uid, waitFor, wsParseFrames } from './harness.mjs';

const KiB = 1024;
const MiB = 1024 * KiB;

// A WebSocket that does not read: its upgrade request is sent, nothing of the reply is taken.
async function stalledWebSocket(srv, user) {
  const socket = await rawConnect(srv);
  socket.on('error', () => {});
  socket.pause();
  socket.write(`GET /ws?user=${user} HTTP/1.1\r\nHost: ${srv.host}:${srv.port}\r\n` +
    `Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n` +
    'Sec-WebSocket-Version: 13\r\n\r\n');
  return socket;
}

// Reads `socket` from now on: resolves the text frames' JSON once `want` messages came.
function readFrames(socket, want) {
  return new Promise((resolve, reject) => {
    let buf = Buffer.alloc(0);
    let head = true;
    const out = [];
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (head) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        if (!buf.subarray(0, 12).toString().startsWith('HTTP/1.1 101')) reject(new Error(buf.toString().slice(0, 200)));
        head = false;
        buf = buf.subarray(end + 4);
      }
      const { frames, rest } = wsParseFrames(buf);
      buf = rest;
      for (const f of frames) if (f.opcode === 1) out.push(JSON.parse(f.payload.toString()));
      if (out.filter((m) => m.type === 'message').length >= want) resolve(out);
    });
    socket.on('close', () => reject(new Error(`closed after ${out.length} frames`)));
    socket.resume();
  });
}

test('an upgrade with 30 never-reading WebSockets holding large sticky messages: the state and the new process hold each message once', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringcast-upgrade-'));
  const next = path.join(dir, 'ringcast-next');
  fs.copyFileSync(BIN, next);
  fs.chmodSync(next, 0o755);
  const srv = await startServer(['--upgrade-binary', next, '--threads', '2', '--max-body', String(MiB)]);
  try {
    // 24 sticky broadcasts of 400 KB: 9.6 MB owed to each client that connects, 288 MB to 30.
    const sticky = [];
    for (let i = 0; i < 24; i++) {
      const r = await srv.publish({ data: randomBytes(300 * KiB).toString('base64'), sticky: true, ttl: '1h' });
      sticky.push(r.id);
    }
    const distinct = 24 * 400 * KiB;
    const sockets = [];
    for (let i = 0; i < 30; i++) sockets.push(await stalledWebSocket(srv, uid('stall')));
    await srv.statsUntil((s) => s.connections.ws === 30, 5000, '30 WebSockets');
    await sleep(300); // the sockets take what they take
    const rssBefore = rssKiB(srv.proc.pid);
    const from = srv.log.length;
    srv.proc.kill('SIGUSR2');
    await srv.statsUntil((s) => s.upgrades === 1, 20000, 'upgraded');
    await sleep(300);
    const rssAfter = rssKiB(srv.proc.pid);
    const log = srv.log.slice(from);
    const pause = /serving again after ([\d.]+) ms/u.exec(log)?.[1];
    const size = Number(/a state of (\d+) bytes/u.exec(log)?.[1]);
    t.diagnostic(`RSS ${rssBefore} KiB before, ${rssAfter} KiB after; state ${size} bytes; pause ${pause} ms`);
    // On the old format each connection's unwritten bytes were copied into the state and into
    // the new process: about 30 x 5 MB here.
    assert.ok(rssAfter - rssBefore < 24 * 1024, `the new process holds ${rssAfter - rssBefore} KiB more`);
    // The distinct messages, twice over at most (the node's state and each connection's partly
    // written frame, at most one message each), and a little.
    assert.ok(size < distinct + 30 * 400 * KiB + MiB, `a state of ${size} bytes`);
    // The sockets took the first few messages (several MB each on loopback); the rest are queued.
    const queued = Number(/upgrade: a state of \d+ bytes \((\d+) message\(s\) queued to 30 moving stream\(s\)\)/u.exec(log)?.[1]);
    assert.ok(queued >= 8, `${queued} messages queued`);
    // Every client then gets hello and every sticky message, whole, once, in order.
    const got = await Promise.all(sockets.map((s) => readFrames(s, 24)));
    for (const frames of got) {
      assert.equal(frames[0].type, 'hello');
      assert.deepEqual(frames.filter((m) => m.type === 'message').map((m) => m.id), sticky);
    }
    for (const s of sockets) s.destroy();
  } finally {
    await srv.stop();
  }
});
