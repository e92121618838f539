// What a client that accepts gzip can make the server hold (issue 35, "Compressed replies share
// bytes as uncompressed ones do"; docs/security.md, "Budget"): a long-poll reply of several
// messages is written from each message's gzip piece, made once per node and shared, and a few
// bytes of the reply's own, so a client that never reads it pins no copy of its body.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import { assertServes, rawConnect, rssKiB, sleep, startServer, uid, untilCpuQuiet, waitFor } from './harness.mjs';

// Under AddressSanitizer freed memory waits in a quarantine that would swamp the RSS bound.
const smallQuarantine = {
  ASAN_OPTIONS: [process.env.ASAN_OPTIONS, 'quarantine_size_mb=4'].filter(Boolean).join(':'),
};

const gzipPoll = (params) => {
  const q = Object.entries(params).map(([k, v]) => `${k}=${v}`).join('&');
  return `GET /poll?${q} HTTP/1.1\r\nHost: x\r\nAccept-Encoding: gzip\r\n\r\n`;
};

describe('gzip long-poll replies of several messages', () => {
  let srv;
  let first = 0;
  before(async () => {
    srv = await startServer(['--threads', '2', '--write-timeout', '3s', '--history', '1000'],
      { env: smallQuarantine });
    // 40 messages of 48 KB of random base64 (gzip saves only a quarter of it): each reply is
    // about 1 MiB plain and 0.75 MiB gzipped.
    for (let i = 0; i < 40; i++) {
      const { id } = await srv.publish({ data: { blob: randomBytes(36 * 1024).toString('base64') } });
      if (!first) first = id;
    }
  });
  after(async () => { await srv?.stop(); });

  test('a reply gathered from the shared pieces is one gzip member that Node zlib decodes to the plain reply', async () => {
    const read = async (headers) => {
      const s = await rawConnect(srv);
      const chunks = [];
      s.on('data', (c) => chunks.push(c));
      s.write(`GET /poll?user=${uid('d')}&since=${first - 1} HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`);
      await new Promise((resolve) => s.on('end', resolve));
      const all = Buffer.concat(chunks);
      const split = all.indexOf('\r\n\r\n');
      const head = all.subarray(0, split).toString('latin1');
      const body = all.subarray(split + 4);
      assert.equal(Number(/\r\ncontent-length: (\d+)/iu.exec(head)[1]), body.length, head);
      return { head, body };
    };
    const zipped = await read('Accept-Encoding: gzip\r\n');
    assert.match(zipped.head, /\r\nContent-Encoding: gzip/iu);
    const plain = await read('');
    const reply = JSON.parse(zlib.gunzipSync(zipped.body).toString());
    assert.deepEqual(reply, JSON.parse(plain.body.toString()));
    assert.ok(reply.messages.length > 1 && reply.more === true, `${reply.messages.length} messages`);
    assert.ok(zipped.body.length < plain.body.length, `${zipped.body.length} against ${plain.body.length}`);
  });

  test('60 clients that pipeline gzip polls and never read add < 16 MiB (no reply holds a copy of its body)', async (t) => {
    const pid = srv.proc.pid;
    const s0 = await srv.stats();
    const rss0 = rssKiB(pid);
    let peak = rss0;
    const sockets = [];
    for (let c = 0; c < 60; c++) {
      const s = await rawConnect(srv);
      s.on('error', () => {});
      s.pause(); // never reads
      // 8 pipelined polls, about 6 MiB of gzip owed: more than the socket buffers take, so each
      // connection has a reply whose write waits.
      s.write(Array.from({ length: 8 }, () => gzipPoll({ user: uid('gz'), since: first - 1 })).join(''));
      sockets.push(s);
    }
    // Until the server stops using CPU for 150 ms: every write waits.
    peak = (await untilCpuQuiet(pid, { peakKiB: peak })).peakKiB;
    const waiting = await srv.stats();
    await waitFor(async () => {
      peak = Math.max(peak, rssKiB(pid));
      const s = await srv.stats();
      return s.expirations.write_timeout - s0.expirations.write_timeout >= 60 ? s : null;
    }, 15000, 'every client closed at --write-timeout', 20);
    const grown = peak - rss0;
    t.diagnostic(`RSS ${rss0} KiB, peak ${peak} KiB (+${grown} KiB); ${waiting.compression.compressed_sent - s0.compression.compressed_sent} messages sent gzipped`);
    assert.ok(waiting.compression.compressed_sent - s0.compression.compressed_sent >= 60 * 10,
      'the replies went gzipped');
    assert.ok(grown < 16 * 1024, `server RSS grew by ${grown} KiB`);
    for (const s of sockets) s.destroy();
    await assertServes(srv);
  });
});

// A paced message that reaches an SSE client after a higher id goes without its `id:` line
// (docs/protocol.md, "Paced publish"). That form too is made once per node and shared: before,
// every such client got its own copy (gzip-deflated for it alone), held while it did not read.
describe('gzip SSE: paced messages that come late', () => {
  let srv;
  before(async () => {
    srv = await startServer(['--threads', '2', '--max-body', String(1024 * 1024), '--write-timeout', '20s'],
      { env: smallQuarantine });
  });
  after(async () => { await srv?.stop(); });

  test('40 gzip SSE clients that never read 16 paced 400 KB messages come late add < 48 MiB, each message deflated once', async (t) => {
    const pid = srv.proc.pid;
    const sockets = [];
    for (let i = 0; i < 40; i++) {
      const s = await rawConnect(srv);
      s.on('error', () => {});
      s.pause(); // never reads
      s.write(`GET /sse?user=${uid('late')} HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\nAccept-Encoding: gzip\r\n\r\n`);
      sockets.push(s);
    }
    await srv.statsUntil((s) => s.connections.sse === 40, 5000, '40 SSE streams');
    const s0 = await srv.stats();
    const rss0 = rssKiB(pid);
    // 6.4 MB owed to each client, more than its socket takes: the rest waits in its queue.
    for (let i = 0; i < 16; i++) {
      await srv.publish({ data: randomBytes(300 * 1024).toString('base64'), spread: '1s' });
    }
    // A higher id, at once to everyone: the paced turns that come after it are unnumbered.
    await srv.publish({ data: 'newer' });
    await sleep(1500);
    const { peakKiB: peak } = await untilCpuQuiet(pid);
    const s1 = await srv.stats();
    const grown = peak - rss0;
    const compressed = s1.compression.messages_compressed - s0.compression.messages_compressed;
    t.diagnostic(`RSS ${rss0} KiB, peak ${peak} KiB (+${grown} KiB); ${compressed} compressed forms made`);
    // The messages themselves (6.4 MB of envelopes, the one-message poll bodies, their gzip
    // pieces numbered and not) are in that; 40 private copies are not.
    assert.ok(grown < 48 * 1024, `server RSS grew by ${grown} KiB`);
    // Each message deflated once per form (numbered, unnumbered), not once per client.
    assert.ok(compressed <= 2 * 17, `${compressed} compressed forms for 17 messages`);
    assert.ok(s1.connections.sse === 40, 'the clients are still connected');
    for (const s of sockets) s.destroy();
    await assertServes(srv);
  });
});
