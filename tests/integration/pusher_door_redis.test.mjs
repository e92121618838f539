// The Pusher door on two nodes through Redis (docs/pusher.md, "Several nodes"), with the real
// pusher-js in Node on each: a ringcast admin publish on one node reaches Pusher clients on the
// other under its event name; a client event crosses to the other node's subscribers and never
// back to its sender (its except_socket travels in the stream), with user_id on presence; the
// presence member list is the cluster's (a user on both nodes is one member).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Pusher from 'pusher';
import { startRedis, startServer, uid, sleep, waitFor } from './harness.mjs';
import { pusherClient, eventOn } from './pusher_client.mjs';

const app = { appId: 'two-nodes', key: 'two-nodes-key', secret: 'two-nodes-secret' };

test('two nodes: publishes, client events and presence members cross through Redis', async () => {
  const redis = await startRedis();
  const flags = ['--redis', redis.url, '--threads', '2', '--pusher-app-id', app.appId,
    '--pusher-key', app.key, '--pusher-secret', app.secret, '--pusher-client-events'];
  const a = await startServer(flags);
  const b = await startServer(flags);
  const clients = [];
  try {
    const onA = await pusherClient(a, app, { user: { id: 'ann', info: { n: 1 } } });
    const onB = await pusherClient(b, app, { user: { id: 'ben', info: { n: 2 } } });
    clients.push(onA, onB);
    const sale = uid('sale');
    await onB.subscribe(sale);
    await a.publish({ channel: sale, data: { price: 5 }, event: 'promo' });
    assert.deepEqual((await onB.next(eventOn(sale, 'promo'), 'promo on the other node', 5000)).data, { price: 5 });

    const room = `presence-${uid('room')}`;
    const annRoom = await onA.subscribe(room);
    // Node a's member reaches Redis as its change is written: node b's list has Ann from then on.
    const sdkB = new Pusher({ ...app, host: b.host, port: String(b.port), useTLS: false });
    await waitFor(async () => {
      const res = await sdkB.get({ path: `/channels/${room}/users` });
      return (await res.json()).users.length === 1;
    }, 5000, 'ann in the cluster\'s members');
    const benRoom = await onB.subscribe(room);
    assert.equal(benRoom.members.count, 2);
    assert.deepEqual(benRoom.members.get('ann'), { id: 'ann', info: { n: 1 } });
    const added = await onA.next(eventOn(room, 'pusher_internal:member_added'), 'ben added on node a', 5000);
    assert.equal(added.data.user_id, 'ben');
    assert.equal(annRoom.members.count, 2);
    // Ann on node b too: still one member, nobody told.
    const ann2 = await pusherClient(b, app, { user: { id: 'ann', info: { n: 1 } } });
    clients.push(ann2);
    assert.equal((await ann2.subscribe(room)).members.count, 2);

    annRoom.trigger('client-wave', { hi: true });
    const wave = await onB.next(eventOn(room, 'client-wave'), 'wave on node b', 5000);
    assert.deepEqual(wave.data, { hi: true });
    assert.equal(wave.user_id, 'ann');
    await ann2.next(eventOn(room, 'client-wave'), 'wave at ann\'s other connection', 5000);
    await sleep(300);
    assert.equal(onA.frames.some(eventOn(room, 'client-wave')), false);
    assert.equal(onB.frames.some(eventOn(room, 'pusher_internal:member_added')), false);

    onB.close();
    const removed = await onA.next(eventOn(room, 'pusher_internal:member_removed'), 'ben removed', 5000);
    assert.equal(removed.data.user_id, 'ben');
  } finally {
    for (const c of clients) c.close();
    await a.stop();
    await b.stop();
    await redis.stop();
  }
});
