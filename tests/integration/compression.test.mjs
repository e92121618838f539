// docs/protocol.md, "Compression": WebSocket permessage-deflate (RFC 7692), negotiated without
// context takeover; each message deflated once per node and the same frame sent to every client
// that negotiated it; compressed client frames read, a decompression bomb closed 1009.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { isDeepStrictEqual } from 'node:util';
import zlib from 'node:zlib';
import WebSocket from 'ws';
import {
  Inbox, query, rawConnect, requireCommand, rssKiB, startServer, uid, waitFor, wsParseFrames,
} from './harness.mjs';

// A payload that compresses: a catalog update of about `size` bytes.
function catalog(size) {
  const items = [];
  for (let i = 0; JSON.stringify(items).length < size; i++) {
    items.push({ sku: `SKU-${1000 + i}`, price_cents: 999 + i, url: `https://shop.example.com/p/${i}` });
  }
  return { kind: 'catalog', items };
}

// A `ws` client with permessage-deflate on (threshold 0: it compresses every message it sends).
function deflateClient(srv, params) {
  const socket = new WebSocket(srv.wsUrl(params), {
    perMessageDeflate: { threshold: 0, clientMaxWindowBits: true },
    handshakeTimeout: 5000,
  });
  const inbox = new Inbox('ws deflate');
  socket.on('message', (data) => inbox.push(JSON.parse(data.toString())));
  socket.on('close', () => inbox.end());
  socket.on('error', () => {});
  const opened = new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return { socket, inbox, opened };
}

function upgradeRequest(srv, params, extensions) {
  return `GET /ws${query(params)} HTTP/1.1\r\nHost: ${srv.host}:${srv.port}\r\n` +
    'Upgrade: websocket\r\nConnection: Upgrade\r\n' +
    `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\n` +
    (extensions ? `Sec-WebSocket-Extensions: ${extensions}\r\n` : '') + '\r\n';
}

// A WebSocket upgrade over a raw socket offering `extensions`: { socket, head, frames, closed },
// `frames` the server's frames as sent ({rsv1, opcode, payload}).
async function raw(srv, params, extensions) {
  const socket = await rawConnect(srv);
  socket.write(upgradeRequest(srv, params, extensions));
  const frames = new Inbox('raw deflate');
  socket.on('error', () => {});
  const closed = new Promise((resolve) => socket.on('close', () => { frames.end(); resolve(); }));
  let buf = Buffer.alloc(0);
  let head = null;
  const headIn = new Promise((resolve, reject) => {
    socket.on('data', (chunk) => {
      buf = Buffer.concat([buf, chunk]);
      if (head === null) {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) return;
        head = buf.subarray(0, end).toString();
        buf = buf.subarray(end + 4);
        resolve(head);
      }
      // RSV1 is read from each frame's first byte: wsParseFrames keeps only the opcode.
      const rsv = [];
      let off = 0;
      const { frames: got, rest } = wsParseFrames(buf);
      for (const f of got) {
        rsv.push((buf[off] & 0x40) !== 0);
        const len = f.payload.length;
        off += 2 + (len < 126 ? 0 : len < 65536 ? 2 : 8) + len;
      }
      got.forEach((f, i) => frames.push({ rsv1: rsv[i], opcode: f.opcode, payload: Buffer.from(f.payload) }));
      buf = rest;
    });
    closed.then(() => reject(new Error('closed before the upgrade')));
  });
  return { socket, head: await headIn, frames, closed };
}

// RFC 7692 section 7.2.2: the receiver appends 00 00 ff ff and inflates.
function inflate(payload) {
  return zlib.inflateRawSync(Buffer.concat([payload, Buffer.from([0, 0, 0xff, 0xff])]),
    { finishFlush: zlib.constants.Z_SYNC_FLUSH });
}

// A masked client frame; `rsv1` marks it compressed.
function clientFrame(opcode, payload, rsv1 = false) {
  const len = payload.length;
  const ext = len < 126 ? 0 : len < 65536 ? 2 : 8;
  const head = Buffer.alloc(2 + ext + 4);
  head[0] = 0x80 | (rsv1 ? 0x40 : 0) | opcode;
  head[1] = 0x80 | (ext === 0 ? len : ext === 2 ? 126 : 127);
  if (ext === 2) head.writeUInt16BE(len, 2);
  if (ext === 8) head.writeBigUInt64BE(BigInt(len), 2);
  const key = randomBytes(4);
  key.copy(head, 2 + ext);
  const body = Buffer.alloc(len);
  for (let i = 0; i < len; i++) body[i] = payload[i] ^ key[i % 4];
  return Buffer.concat([head, body]);
}

function deflate(text) {
  const out = zlib.deflateRawSync(Buffer.from(text), { flush: zlib.constants.Z_SYNC_FLUSH });
  return out.subarray(0, out.length - 4);  // the trailing 00 00 ff ff
}

describe('permessage-deflate', () => {
  let srv;
  before(async () => { srv = await startServer(['--heartbeat', '30', '--idle-timeout', '30']); });
  after(async () => { await srv?.stop(); });

  test('negotiated without context takeover when offered, not otherwise', async () => {
    const offered = await raw(srv, { user: uid('n') }, 'permessage-deflate; client_max_window_bits');
    assert.match(offered.head, /^HTTP\/1\.1 101/u);
    assert.match(offered.head,
      /\r\nSec-WebSocket-Extensions: permessage-deflate; server_no_context_takeover; client_no_context_takeover(\r\n|$)/iu);
    offered.socket.destroy();
    const refused = await raw(srv, { user: uid('n') }, 'permessage-deflate; server_max_window_bits=10');
    assert.match(refused.head, /^HTTP\/1\.1 101/u);
    assert.doesNotMatch(refused.head, /Sec-WebSocket-Extensions/iu);
    refused.socket.destroy();
    const none = await raw(srv, { user: uid('n') });
    assert.doesNotMatch(none.head, /Sec-WebSocket-Extensions/iu);
    none.socket.destroy();
  });

  test('a ws client with perMessageDeflate receives every message of a broadcast and is read', async () => {
    const clients = [];
    for (let i = 0; i < 3; i++) {
      const c = deflateClient(srv, { user: uid('d') });
      await c.opened;
      assert.match(c.socket.extensions, /permessage-deflate/u);
      await c.inbox.next('hello');
      clients.push(c);
    }
    // Compressed client frames are read: a compressed ping is answered.
    for (const c of clients) {
      c.socket.send(JSON.stringify({ type: 'ping' }));
      await c.inbox.next('pong');
    }
    const before = await srv.stats();
    const sent = [];
    for (const size of [20, 130, 400, 2000, 20000]) {
      for (let k = 0; k < 4; k++) sent.push({ id: (await srv.publish({ data: catalog(size) })).id, size });
    }
    for (const c of clients) {
      for (const s of sent) {
        const m = await c.inbox.next((x) => x.type === 'message' && x.id === s.id);
        assert.ok(isDeepStrictEqual(m.data, catalog(s.size)),
          `message ${s.id} of ${s.size} B: got ${JSON.stringify(m).slice(0, 200)}`);
      }
    }
    // Each message (all over --compress-min-bytes) was deflated once for the node, and sent
    // compressed to all three.
    const after = await srv.statsUntil((st) => st.compression.compressed_sent -
      before.compression.compressed_sent >= 3 * sent.length);
    assert.equal(after.compression.compressed_sent - before.compression.compressed_sent, 3 * sent.length);
    assert.equal(after.compression.messages_compressed - before.compression.messages_compressed,
      sent.length);
    assert.ok(after.compression.bytes_saved > before.compression.bytes_saved);
    const metrics = await srv.admin('GET', '/metrics');
    assert.match(metrics.text, /^ringcast_bytes_written_total \d+/mu);
    assert.match(metrics.text, /^ringcast_compression_saved_bytes_total [1-9]\d*/mu);
    for (const c of clients) c.socket.close();
  });

  test('the compressed frames inflate (zlib) to the plain frame another client gets', async () => {
    const plain = await raw(srv, { user: uid('p') });
    const packed = await raw(srv, { user: uid('z') }, 'permessage-deflate');
    await plain.frames.next((f) => f.opcode === 1);  // hello
    await packed.frames.next((f) => f.opcode === 1);
    let compressed = 0;
    // The first is under --compress-min-bytes (100 by default): it goes plain.
    for (const data of [1, catalog(10), catalog(130), catalog(400), catalog(2000), catalog(50000)]) {
      const { id } = await srv.publish({ data });
      const p = await plain.frames.next((f) => f.opcode === 1 && f.payload.includes(`"id":${id},`));
      assert.equal(p.rsv1, false);
      const z = await packed.frames.next((f) => f.opcode === 1);
      if (z.rsv1) {
        compressed++;
        assert.ok(z.payload.length < p.payload.length);
        assert.deepEqual(inflate(z.payload), p.payload);
      } else {
        assert.deepEqual(z.payload, p.payload);  // under --compress-min-bytes
      }
    }
    assert.equal(compressed, 5);
    plain.socket.destroy();
    packed.socket.destroy();
  });

  test('a decompression bomb is closed 1009', async () => {
    const c = await raw(srv, { user: uid('b') }, 'permessage-deflate');
    await c.frames.next((f) => f.opcode === 1);
    const bomb = deflate(JSON.stringify({ type: 'ping', pad: 'a'.repeat(3_000_000) }));
    assert.ok(bomb.length < 4096, `bomb of ${bomb.length} bytes`);
    c.socket.write(clientFrame(1, bomb, true));
    const close = await c.frames.next((f) => f.opcode === 8);
    assert.equal(close.payload.readUInt16BE(0), 1009);
    await c.closed;
  });

  test('RSV1 without the extension is a protocol error (1002)', async () => {
    const c = await raw(srv, { user: uid('r') });
    await c.frames.next((f) => f.opcode === 1);
    c.socket.write(clientFrame(1, deflate('{"type":"ping"}'), true));
    const close = await c.frames.next((f) => f.opcode === 8);
    assert.equal(close.payload.readUInt16BE(0), 1002);
    c.socket.destroy();
  });
});

describe('no memory per connection', () => {
  let srv;
  before(async () => { srv = await startServer(['--threads', '1', '--heartbeat', '60', '--idle-timeout', '60',
    '--max-connections-per-ip', '0']); });
  after(async () => { await srv?.stop(); });

  // N connections that each send a ping (compressed if `extensions`), get its pong and a
  // broadcast of 2 KB, then sit idle: what they added to the server's resident memory.
  async function idleCost(n, extensions) {
    const rss0 = rssKiB(srv.proc.pid);
    const conns = [];
    for (let i = 0; i < n; i++) {
      const c = await raw(srv, { user: uid('m') }, extensions);
      await c.frames.next((f) => f.opcode === 1);  // hello
      const ping = JSON.stringify({ type: 'ping' });
      c.socket.write(extensions ? clientFrame(1, deflate(ping), true) : clientFrame(1, Buffer.from(ping)));
      await c.frames.next((f) => f.opcode === 1);  // pong
      conns.push(c);
    }
    await srv.publish({ data: catalog(2000) });
    for (const c of conns) {
      const m = await c.frames.next((f) => f.opcode === 1);
      assert.equal(m.rsv1, Boolean(extensions));
    }
    const kib = rssKiB(srv.proc.pid) - rss0;
    return { conns, kib };
  }

  test('an idle WebSocket with compression negotiated holds no zlib state', async () => {
    const n = 300;
    const plain = await idleCost(n);
    const packed = await idleCost(n, 'permessage-deflate; client_max_window_bits');
    // A zlib stream per connection would be 40 KiB (an inflater's window) to 260 KiB (a
    // deflater) each; one deflater and one inflater per loop, and one compressed copy of the
    // message, are all compression may add.
    const perConnection = (packed.kib - plain.kib) / n;
    assert.ok(perConnection < 4, `compressed connections cost ${perConnection.toFixed(1)} KiB more each ` +
      `(plain ${plain.kib} KiB, compressed ${packed.kib} KiB for ${n})`);
    for (const c of [...plain.conns, ...packed.conns]) c.socket.destroy();
  });
});

describe('--compression off', () => {
  let srv;
  before(async () => { srv = await startServer(['--compression', 'off']); });
  after(async () => { await srv?.stop(); });

  test('no extension is answered and frames go plain', async () => {
    const c = await raw(srv, { user: uid('o') }, 'permessage-deflate');
    assert.doesNotMatch(c.head, /Sec-WebSocket-Extensions/iu);
    await c.frames.next((f) => f.opcode === 1);
    await srv.publish({ data: catalog(2000) });
    const m = await c.frames.next((f) => f.opcode === 1);
    assert.equal(m.rsv1, false);
    assert.equal(JSON.parse(m.payload.toString()).type, 'message');
    c.socket.destroy();
  });
});

// An SSE stream asked for with Accept-Encoding: gzip: { res, raw: [Buffer], text: () => string,
// error: () => Error|undefined }. `raw` is what came over the wire; `text()` what it inflates to so
// far; `error()` why inflating stopped, if it did.
function gzipSse(srv, params) {
  return new Promise((resolve, reject) => {
    const req = http.get({
      host: srv.host, port: srv.port, path: `/sse${query(params)}`, agent: false,
      headers: { Accept: 'text/event-stream', 'Accept-Encoding': 'gzip, deflate' },
    }, (res) => {
      const raw = [];
      let text = '';
      const gunzip = zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH });
      res.on('data', (chunk) => { raw.push(chunk); gunzip.write(chunk); });
      gunzip.on('data', (d) => { text += d.toString(); });
      let error;
      gunzip.on('error', (e) => { error = e; });
      resolve({ res, req, raw, text: () => text, error: () => error });
    });
    req.on('error', reject);
  });
}

describe('SSE over gzip', () => {
  let srv;
  before(async () => { srv = await startServer(['--heartbeat', '1', '--idle-timeout', '30']); });
  after(async () => { await srv?.stop(); });

  test('events arrive in time, each made once and the same bytes for every subscriber', async () => {
    const a = await gzipSse(srv, { user: uid('ga') });
    const b = await gzipSse(srv, { user: uid('gb') });
    for (const c of [a, b]) {
      assert.equal(c.res.headers['content-encoding'], 'gzip');
      assert.match(c.res.headers.vary ?? '', /Accept-Encoding/iu);
      await waitFor(() => c.text().includes('event: hello'), 3000, 'hello inflated');
    }
    const before = await srv.stats();
    const rawBefore = [a.raw.length, b.raw.length];
    const data = catalog(2000);
    const { id } = await srv.publish({ data });
    // Inflated as it comes: no buffering until the stream ends.
    for (const c of [a, b]) {
      await waitFor(() => c.text().includes(`id: ${id}\n`), 2000, 'message inflated in time');
      const event = c.text().split('\n\n').find((e) => e.startsWith(`id: ${id}\n`));
      assert.deepEqual(JSON.parse(event.split('\ndata: ')[1]).data, data);
    }
    // The message's piece is the same bytes on both streams, and smaller than the event.
    const after = await srv.statsUntil((st) => st.compression.compressed_sent -
      before.compression.compressed_sent >= 2);
    assert.equal(after.compression.messages_compressed - before.compression.messages_compressed, 1);
    const piece = (c, from) => Buffer.concat(c.raw.slice(from));
    const pa = piece(a, rawBefore[0]);
    const pb = piece(b, rawBefore[1]);
    assert.ok(pa.length < JSON.stringify(data).length / 2, `piece of ${pa.length} bytes`);
    assert.ok(pa.subarray(0, 64).equals(pb.subarray(0, 64)), 'the same piece on both streams');
    // Heartbeats are pieces too.
    await waitFor(() => a.text().includes(': hb\n\n'), 3000, 'a heartbeat inflated');
    a.req.destroy();
    b.req.destroy();
  });

  test('promotions in force and the resume point after them are gzip pieces too', async () => {
    const user = uid('gsticky');
    const sticky = await srv.publish({ user, data: { sale: 'in force' }, ttl: '1h', sticky: true });
    const c = await gzipSse(srv, { user });
    await waitFor(() => c.text().includes(`id: ${sticky.id}\n`), 3000, 'the sticky message inflated');
    const { id } = await srv.publish({ user, data: { next: true } });
    await waitFor(() => c.text().includes(`id: ${id}\n`) || c.error(), 3000, 'a live message after it');
    assert.equal(c.error(), undefined);
    assert.ok(c.text().includes(`id: ${id}\n`));
    c.req.destroy();
  });

  test('curl --compressed reads the stream to its end', async () => {
    requireCommand('curl');
    const user = uid('curl');
    const curl = spawn('curl', ['-sN', '--compressed', '-D', '-', '--max-time', '5',
      `http://${srv.host}:${srv.port}/sse${query({ user })}`]);
    let out = '';
    curl.stdout.on('data', (d) => { out += d; });
    const exited = new Promise((resolve) => curl.on('exit', resolve));
    await waitFor(() => out.includes('event: hello'), 3000, 'hello through curl');
    const { id } = await srv.publish({ data: catalog(400) });
    await waitFor(() => out.includes(`id: ${id}\n`), 2000, 'message through curl');
    await srv.kick(user);
    assert.equal(await exited, 0);
    assert.match(out, /\r\nContent-Encoding: gzip\r\n/iu);  // curl's -D: it did inflate
    assert.match(out, /event: close\ndata: \{"type":"close","reason":"kicked"\}\n\n$/u);
  });

  test('without Accept-Encoding: gzip the stream is plain', async () => {
    const c = await srv.sseHello({ user: uid('plain') });
    assert.equal(c.headers['content-encoding'], undefined);
    c.close();
  });
});

describe('long-poll over gzip', () => {
  let srv;
  before(async () => { srv = await startServer(['--poll-timeout', '5']); });
  after(async () => { await srv?.stop(); });

  // A held poll with Accept-Encoding: gzip, answered by the next publish: { status, headers, body }.
  function heldPoll(params) {
    return new Promise((resolve, reject) => {
      const req = http.get({
        host: srv.host, port: srv.port, path: `/poll${query(params)}`, agent: false,
        headers: { 'Accept-Encoding': 'gzip' },
      }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
    });
  }

  test('a one-message reply is the prebuilt gzip body, the same bytes for every poll', async () => {
    const hello = await srv.poll({ user: uid('lp') });
    const since = hello.json.last_id;
    const before = await srv.stats();
    const polls = [heldPoll({ user: uid('lpa'), since }), heldPoll({ user: uid('lpb'), since })];
    await srv.statsUntil((st) => st.connections.poll >= 2);
    const data = catalog(2000);
    const { id } = await srv.publish({ data });
    const [a, b] = await Promise.all(polls);
    for (const r of [a, b]) {
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-encoding'], 'gzip');
      const reply = JSON.parse(zlib.gunzipSync(r.body).toString());
      assert.equal(reply.messages.length, 1);
      assert.equal(reply.messages[0].id, id);
      assert.deepEqual(reply.messages[0].data, data);
      assert.ok(r.body.length < JSON.stringify(data).length / 2, `gzip body of ${r.body.length} bytes`);
    }
    assert.ok(a.body.equals(b.body), 'the same gzip body for both polls');
    const after = await srv.stats();
    assert.equal(after.compression.messages_compressed - before.compression.messages_compressed, 1);
  });

  // A poll answered at once: { status, headers, body } (the body as sent).
  async function pollNow(params, headers = { 'Accept-Encoding': 'gzip' }) {
    const r = await new Promise((resolve, reject) => {
      const req = http.get({ host: srv.host, port: srv.port, path: `/poll${query(params)}`, agent: false, headers },
        (res) => {
          const chunks = [];
          res.on('data', (c) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        });
      req.on('error', reject);
    });
    assert.equal(r.status, 200);
    return r;
  }

  test('a reply of several retained messages is gzip when it pays, plain when not accepted', async () => {
    const hello = await srv.poll({ user: uid('lm') });
    const since = hello.json.last_id;
    const sent = [];
    for (let i = 0; i < 3; i++) {
      const data = catalog(400);
      sent.push({ id: (await srv.publish({ data })).id, data });
    }
    const before = await srv.stats();
    const zipped = await pollNow({ user: uid('lmz'), since });
    assert.equal(zipped.headers['content-encoding'], 'gzip');
    const reply = JSON.parse(zlib.gunzipSync(zipped.body).toString());
    assert.deepEqual(reply.messages.map((m) => [m.id, m.data]), sent.map((m) => [m.id, m.data]));
    assert.equal(reply.last_id, sent[2].id);
    const plain = await pollNow({ user: uid('lmp'), since }, {});
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(JSON.parse(plain.body.toString()), reply, 'the same reply, plain');
    assert.ok(zipped.body.length < plain.body.length / 2,
      `gzip ${zipped.body.length} bytes against ${plain.body.length} plain`);
    const after = await srv.stats();
    assert.equal(after.compression.compressed_sent - before.compression.compressed_sent, 3);
    assert.equal(after.compression.bytes_saved - before.compression.bytes_saved,
      plain.body.length - zipped.body.length);
    // Each message is deflated once per node, never per request: polling the same backlog again
    // (what an attacker repeats to make a loop deflate a whole reply each time) deflates nothing.
    assert.equal(after.compression.messages_compressed - before.compression.messages_compressed, 3);
    const again = await pollNow({ user: uid('lmz2'), since });
    assert.ok(again.body.equals(zipped.body), 'the same spliced bytes');
    assert.equal((await srv.stats()).compression.messages_compressed,
      after.compression.messages_compressed);
  });

  test('a one-message reply given at once is the same prebuilt gzip body as a held poll gets', async () => {
    const hello = await srv.poll({ user: uid('l1') });
    const since = hello.json.last_id;
    const held = heldPoll({ user: uid('l1h'), since });
    await srv.statsUntil((st) => st.connections.poll >= 1);
    const before = await srv.stats();
    const { id } = await srv.publish({ data: catalog(2000) });
    const a = await held;
    const b = await pollNow({ user: uid('l1n'), since });
    assert.equal(b.headers['content-encoding'], 'gzip');
    assert.equal(JSON.parse(zlib.gunzipSync(b.body).toString()).messages[0].id, id);
    assert.ok(a.body.equals(b.body), 'the held poll and the poll answered at once get the same bytes');
    const after = await srv.stats();
    assert.equal(after.compression.messages_compressed - before.compression.messages_compressed, 1);
  });

  test('curl --compressed reads a reply of several messages', async () => {
    requireCommand('curl');
    const hello = await srv.poll({ user: uid('cm') });
    const ids = [];
    for (let i = 0; i < 2; i++) ids.push((await srv.publish({ data: catalog(400) })).id);
    const out = await new Promise((resolve, reject) => {
      const curl = spawn('curl', ['-s', '--compressed', '-D', '-', '--max-time', '5',
        `http://${srv.host}:${srv.port}/poll${query({ user: uid('cmq'), since: hello.json.last_id })}`]);
      let text = '';
      curl.stdout.on('data', (d) => { text += d; });
      curl.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`curl exited ${code}`))));
    });
    assert.match(out, /\r\nContent-Encoding: gzip\r\n/iu);
    const reply = JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4));
    assert.deepEqual(reply.messages.map((m) => m.id), ids);
  });

  test('curl --compressed reads a held poll', async () => {
    requireCommand('curl');
    const hello = await srv.poll({ user: uid('cp') });
    const curl = spawn('curl', ['-s', '--compressed', '-D', '-', '--max-time', '5',
      `http://${srv.host}:${srv.port}/poll${query({ user: uid('cpq'), since: hello.json.last_id })}`]);
    let out = '';
    curl.stdout.on('data', (d) => { out += d; });
    const exited = new Promise((resolve) => curl.on('exit', resolve));
    await srv.statsUntil((st) => st.connections.poll >= 1);
    const { id } = await srv.publish({ data: catalog(400) });
    assert.equal(await exited, 0);
    assert.match(out, /\r\nContent-Encoding: gzip\r\n/iu);
    const reply = JSON.parse(out.slice(out.indexOf('\r\n\r\n') + 4));
    assert.equal(reply.messages[0].id, id);
  });
});

// docs/operations.md, /metrics: bytes written count every reply, long-poll and plain HTTP too.
describe('bytes written', () => {
  let srv;
  // A poll with nothing to return is held this long, then answered `reconnect`/`timeout`.
  before(async () => { srv = await startServer(['--poll-timeout', '1']); });
  after(async () => { await srv?.stop(); });

  // Sends `request` on a raw socket and resolves to every byte the server wrote until it closed.
  async function exchange(request) {
    const socket = await rawConnect(srv);
    const chunks = [];
    socket.on('data', (c) => chunks.push(c));
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write(request);
    await closed;
    return Buffer.concat(chunks);
  }

  const get = (path) => `GET ${path} HTTP/1.1\r\nHost: ${srv.host}:${srv.port}\r\nConnection: close\r\n\r\n`;

  test('long-poll and plain HTTP replies are counted, in /admin/stats and /metrics', async () => {
    const written = async () => {
      const r = await srv.admin('GET', '/admin/stats');
      // This reply is written after its count was taken: it shows in the next one.
      return { count: r.json.compression.bytes_written, own: Buffer.byteLength(r.text) };
    };
    const hello = await srv.poll({ user: uid('bw') });
    await srv.publish({ data: catalog(400) });
    const before = await written();
    const replies = [
      await exchange(get(`/poll${query({ user: uid('bwp') })}`)),  // hello, answered at once
      await exchange(get(`/poll${query({ user: uid('bwp'), since: hello.json.last_id })}`)),  // a message
      await exchange(get('/healthz')),
      await exchange(get('/no-such-path')),
    ];
    for (const r of replies) assert.match(r.toString(), /^HTTP\/1\.1 \d{3} /u);
    const sum = replies.reduce((n, r) => n + r.length, 0);
    const after = await written();
    const delta = after.count - before.count;
    // The replies above, and the first stats reply (its body, and a head of a few hundred bytes).
    assert.ok(delta >= sum + before.own && delta <= sum + before.own + 1024,
      `bytes_written grew ${delta}; the replies were ${sum} bytes, the stats reply ${before.own} of body`);
    // The stats reply's bytes are booked when its write completes on its loop, which may be a
    // moment after the client has read it: /metrics, read at once on a new connection, can come
    // first.
    await waitFor(async () => {
      const metrics = await srv.get('/metrics');
      const m = /^ringcast_bytes_written_total (\d+)$/mu.exec(metrics.text);
      assert.ok(m, 'ringcast_bytes_written_total in /metrics');
      return Number(m[1]) >= after.count + after.own;
    }, 2000, '/metrics to count the stats reply');
  });
});
