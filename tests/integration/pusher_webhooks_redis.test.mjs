// Pusher's webhooks across two nodes through Redis (docs/pusher.md, "Several nodes"): a channel
// with sessions on both nodes is occupied once and vacated once for the cluster, not once per
// node, each webhook checked with the real `pusher` SDK; a node that dies holding a channel alone
// has it vacated by the other node within a session TTL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startRedis, startServer, uid, waitFor, sleep } from './harness.mjs';
import { pusherClient } from './pusher_client.mjs';
import { startWebhookReceiver } from './pusher_webhook_receiver.mjs';

const app = { appId: '77', key: 'cluster-key', secret: 'cluster-secret' };
const appFlags = ['--pusher-app-id', app.appId, '--pusher-key', app.key, '--pusher-secret', app.secret];

test('two nodes: occupied and vacated once for the cluster; a dead node\'s channel is vacated by the other', async () => {
  const redis = await startRedis();
  const receiver = await startWebhookReceiver(app);
  const ttlMs = 2000;
  const flags = ['--redis', redis.url, '--threads', '2', '--session-ttl', '2s', ...appFlags,
    '--pusher-webhook-url', receiver.url, '--hook-flush', '50ms'];
  const a = await startServer(flags);
  const b = await startServer(flags);
  try {
    const sale = uid('sale');
    const onA = await a.wsHello({ user: uid('u'), sid: 's1', channels: sale });
    const onB = await b.wsHello({ user: uid('u'), sid: 's2', channels: sale });
    await waitFor(() => receiver.events(sale).length >= 1, 5000, 'occupied');
    await onA.close();
    await sleep(300);  // b still holds it: nothing yet
    assert.deepEqual(receiver.events(sale), [{ name: 'channel_occupied', channel: sale }]);
    await onB.close();
    await waitFor(() => receiver.events(sale).length >= 2, 5000, 'vacated');
    await sleep(300);  // and nothing more
    assert.deepEqual(receiver.events(sale), [
      { name: 'channel_occupied', channel: sale },
      { name: 'channel_vacated', channel: sale },
    ]);

    // b dies holding `lone` alone: a reaps it and sends channel_vacated.
    const lone = uid('lone');
    await b.wsHello({ user: uid('u'), sid: 's3', channels: lone });
    await waitFor(() => receiver.events(lone).length >= 1, 5000, 'lone occupied');
    const killedAt = Date.now();
    b.proc.kill('SIGKILL');
    await b.exited;
    b.stopped = true;
    b.closeClients();
    await waitFor(() => receiver.events(lone).length >= 2, ttlMs * 2 + 2000, 'lone vacated by a');
    console.log(`a dead node's channel vacated after ${Date.now() - killedAt} ms (session TTL ${ttlMs} ms)`);
    assert.deepEqual(receiver.events(lone), [
      { name: 'channel_occupied', channel: lone },
      { name: 'channel_vacated', channel: lone },
    ]);
    assert.ok(receiver.posts.every((p) => p.valid));
  } finally {
    for (const n of [a, b]) if (!n.stopped) await n.stop();
    await receiver.close();
    await redis.stop();
  }
});

test('two nodes: a node that drains sends the vacated webhook of a channel it held alone before it exits, and not of one the other holds', async () => {
  const redis = await startRedis();
  const receiver = await startWebhookReceiver(app);
  // A session TTL far beyond the test: only the draining node itself can send these.
  const flags = ['--redis', redis.url, '--threads', '2', '--session-ttl', '60s', ...appFlags,
    '--pusher-webhook-url', receiver.url, '--hook-flush', '30s', '--drain', '2s'];
  const a = await startServer(flags);
  const b = await startServer(flags);
  try {
    const lone = uid('lone'), shared = uid('shared');
    await a.wsHello({ user: uid('u'), sid: 's1', channels: shared });
    await b.wsHello({ user: uid('u'), sid: 's2', channels: `${lone},${shared}` });
    await sleep(200);
    await b.stop({ closeClients: false });
    assert.deepEqual(receiver.events(lone), [
      { name: 'channel_occupied', channel: lone },
      { name: 'channel_vacated', channel: lone },
    ]);
    assert.deepEqual(receiver.events(shared).filter((e) => e.name === 'channel_vacated'), []);
    assert.ok(receiver.posts.every((p) => p.valid));
  } finally {
    for (const n of [a, b]) if (!n.stopped) await n.stop();
    await receiver.close();
    await redis.stop();
  }
});

test('two nodes, pusher-js on each: a user on both nodes is added once and removed once, when its last connection anywhere leaves', async () => {
  const redis = await startRedis();
  const receiver = await startWebhookReceiver(app);
  const flags = ['--redis', redis.url, '--threads', '2', '--session-ttl', '60s', ...appFlags,
    '--pusher-webhook-url', receiver.url, '--hook-flush', '50ms'];
  const a = await startServer(flags);
  const b = await startServer(flags);
  const clients = [];
  try {
    const room = `presence-${uid('room')}`;
    const annA = await pusherClient(a, app, { user: { id: 'ann', info: { n: 1 } } });
    const annB = await pusherClient(b, app, { user: { id: 'ann', info: { n: 1 } } });
    const benB = await pusherClient(b, app, { user: { id: 'ben' } });
    clients.push(annA, annB, benB);
    await annA.subscribe(room);
    await annB.subscribe(room);
    await benB.subscribe(room);
    await waitFor(() => receiver.events(room).length >= 3, 5000, 'occupied and two members');
    annA.close();  // ann is still on node b
    await sleep(400);
    annB.close();
    benB.close();
    await waitFor(() => receiver.events(room).length >= 6, 5000, 'the room emptied');
    await sleep(300);  // and nothing more
    const seen = receiver.events(room).map((e) => `${e.name} ${e.user_id ?? ''}`.trim());
    // The first three come from both nodes (their POSTs may cross); the last three from b, ann's
    // and ben's removals in the order b saw their connections end, the channel vacated last.
    assert.deepEqual(seen.slice(0, 3).sort(), ['channel_occupied', 'member_added ann', 'member_added ben']);
    assert.deepEqual(seen.slice(3, 5).sort(), ['member_removed ann', 'member_removed ben']);
    assert.equal(seen[5], 'channel_vacated');
    assert.ok(receiver.posts.every((p) => p.valid));
  } finally {
    for (const c of clients) c.close();
    for (const n of [a, b]) if (!n.stopped) await n.stop();
    await receiver.close();
    await redis.stop();
  }
});
