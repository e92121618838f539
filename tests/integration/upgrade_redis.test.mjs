// docs/operations.md, "Upgrading", with --redis (docs/scaling.md): the upgraded process is the
// same node (its id, which its session claims in Redis name), and its moved connections go on
// receiving what any node publishes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, startRedis, startServer, uid, waitFor } from './harness.mjs';

let redis;
let a;
let b;

before(async () => {
  redis = await startRedis();
  const next = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ringcast-upgrade-')), 'ringcast-next');
  fs.copyFileSync(BIN, next);
  fs.chmodSync(next, 0o755);
  [a, b] = await Promise.all([
    startServer(['--redis', redis.url, '--threads', '2', '--upgrade-binary', next]),
    startServer(['--redis', redis.url, '--threads', '2']),
  ]);
});

after(async () => {
  await Promise.all([a, b].filter(Boolean).map((n) => n.stop()));
  await redis?.stop();
});

test('SIGUSR2 with --redis: the same node id, which the session records in Redis name; the moved connections get what every node publishes, once, in order; another node still takes a session over', async () => {
  const idBefore = (await a.stats()).node.id;
  assert.ok(idBefore, 'a node id');
  const user = uid('ru');
  const ws = await a.wsHello({ user, sid: 's1' });
  const sse = await a.sseHello({ user: uid('rs') });
  const ids = [(await b.publish({ data: 'before' })).id];
  await waitFor(() => ws.ids().length === 1 && sse.ids().length === 1, 3000, 'the first message');

  a.proc.kill('SIGUSR2');
  await a.statsUntil((s) => s.upgrades === 1, 15000, 'upgraded');
  assert.match(a.log, /upgraded in place \(upgrade 1\): \d+ connection\(s\) moved \(2 WebSocket and SSE,/u);
  assert.equal((await a.stats()).node.id, idBefore);
  // The session's record in Redis still names this node (a new id would leave it naming the old
  // process, and a release by the new one would not shorten it).
  const record = `{ringcast}:session:${user}/s1`;
  assert.equal(redis.cli('HGET', record, 'node'), idBefore);

  ids.push((await b.publish({ data: 'after, from the other node' })).id);
  ids.push((await a.publish({ data: 'after, from the upgraded node' })).id);
  await waitFor(() => ws.ids().at(-1) === ids[2] && sse.ids().at(-1) === ids[2], 5000, 'every message');
  assert.deepEqual(ws.ids(), ids);
  assert.deepEqual(sse.ids(), ids);
  assert.ok(ws.isOpen());
  assert.equal(sse.endedAt, undefined, 'the SSE stream ended');

  // The same session connecting on the other node takes it over from this one, as before.
  const again = await b.wsHello({ user, sid: 's1' });
  assert.equal(again.hello.resumed, true, JSON.stringify(again.hello));
  assert.deepEqual(await ws.next('close', 5000), { type: 'close', reason: 'replaced' });
});
