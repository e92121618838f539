// docs/protocol.md, "Timeouts and keep-alive": --keepalive-timeout closes a connection idle between
// requests, and every keep-alive response announces it (Keep-Alive: timeout=N). Node's fetch
// (undici) pools keep-alive connections; told the server's timeout, it reuses a pooled connection
// for N - 2 s only. Without the announcement it reuses one for its own 4 s, and a request sent
// just as the server closes that connection fails with "other side closed" (a POST is not
// retried). This drives fetch across that boundary, publishes and long-polls on one pool as a
// shop's backend would: with the header removed it fails (a few times in every run here).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { sleep, startServer, uid } from './harness.mjs';

const TIMEOUT_S = 3;

describe(`--keepalive-timeout ${TIMEOUT_S}`, () => {
  let srv;
  before(async () => {
    srv = await startServer(['--keepalive-timeout', String(TIMEOUT_S), '--tick-ms', '10',
      '--poll-timeout', '2']);
  });
  after(async () => { await srv?.stop(); });

  test('every keep-alive response says how long the connection stays open', async () => {
    const r = await fetch(`${srv.base}/healthz`);
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('keep-alive'), `timeout=${TIMEOUT_S}`);
    await r.text();
  });

  test('fetch reuses pooled connections around the timeout without a single failure', async () => {
    const headers = { Authorization: `Bearer ${srv.token}`, 'Content-Type': 'application/json' };
    const user = uid('ka');
    const failures = [];
    let published = 0;
    let polled = 0;
    // Pauses between a lane's requests (ms): a short one, in which fetch reuses its connection,
    // then one that ends within the tick in which the server closes an idle connection (its
    // timeout plus at most one 10 ms tick), the moment a connection reused without the
    // announcement would be lost.
    const boundary = (lane, i) => TIMEOUT_S * 1000 + ((lane * 5 + i * 3) % 12);
    const pauses = Array.from({ length: 10 }, (_, i) => i);
    const publisher = async (lane) => {
      for (const i of pauses) {
        try {
          const r = await fetch(`${srv.base}/admin/publish`, {
            method: 'POST', headers, body: JSON.stringify({ user, data: { lane, i } }),
          });
          const body = await r.json();
          assert.equal(r.status, 200, JSON.stringify(body));
          ++published;
        } catch (e) {
          failures.push(`publish lane ${lane} #${i}: ${e.cause?.message ?? e.message}`);
        }
        await sleep(i % 2 ? boundary(lane, i) : 600);
      }
    };
    // Long-polls answered by those publishes or by --poll-timeout: their replies free pooled
    // connections at moments the publishers do not choose.
    const poller = async (lane) => {
      const deadline = Date.now() + 15_000;
      while (Date.now() < deadline) {
        try {
          const r = await fetch(`${srv.base}/poll?user=${user}&sid=p${lane}`);
          const body = await r.json();
          assert.equal(r.status, 200, JSON.stringify(body));
          ++polled;
        } catch (e) {
          failures.push(`poll lane ${lane}: ${e.cause?.message ?? e.message}`);
        }
        await sleep(boundary(lane, polled) - 1000);
      }
    };
    const lanes = [0, 1, 2, 3, 4, 5, 6, 7];
    await Promise.all(lanes.map(publisher).concat([0, 1].map(poller)));
    assert.deepEqual(failures, []);
    assert.equal(published, lanes.length * pauses.length);
    assert.ok(polled >= 4, `only ${polled} long-polls answered`);
  });
});
