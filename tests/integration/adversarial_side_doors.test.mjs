// The side doors of issue 35 against the binary, each at the default flags unless a test says
// otherwise: WebSocket frames that no limit counted (continuations), TCP connections that counted
// against no address until their first request, IPv6 addresses of one prefix, bodies read before
// the request was authorized, uncapped kernel send buffers, tokens without an expiry.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { assertServes, rawWebSocket, startServer, uid, wsFrame } from './harness.mjs';

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
