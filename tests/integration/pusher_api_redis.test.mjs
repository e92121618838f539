// The Pusher HTTP API on two nodes sharing one stream through Redis (--redis, docs/scaling.md):
// an event the `pusher` SDK triggers on one node reaches the clients of the other, the channel
// queries of either node count the subscribers of both, and terminateUserConnections on one node
// ends the user's pusher-js connections on both.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Pusher from 'pusher';
import { startServer, startRedis, uid, waitFor } from './harness.mjs';
import { pusherClient } from './pusher_client.mjs';

const app = { appId: 'shop-2', key: 'redis-key', secret: 'redis-secret' };
let redis;
let nodes = [];

before(async () => {
  redis = await startRedis();
  nodes = await Promise.all([1, 2].map(() => startServer(['--redis', redis.url, '--threads', '2',
    '--pusher-app-id', app.appId, '--pusher-key', app.key, '--pusher-secret', app.secret])));
});
after(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  await redis?.stop();
});

function sdk(node) {
  return new Pusher({ ...app, host: node.host, port: String(node.port), useTLS: false });
}

test('an event triggered on one node reaches the ringcast clients of both, in the batch\'s order', async () => {
  const [a, b] = nodes;
  const onA = await a.wsHello({ user: uid('a'), channels: 'flash' });
  const onB = await b.wsHello({ user: uid('b'), channels: 'flash' });
  await sdk(a).trigger('flash', 'sale', { pct: 20 });
  assert.equal((await onA.next('message')).data, '{"pct":20}');
  assert.equal((await onB.next('message')).data, '{"pct":20}');
  await sdk(b).triggerBatch([1, 2, 3].map((i) => ({ channel: 'flash', name: 'n', data: String(i) })));
  for (const c of [onA, onB])
    assert.deepEqual((await c.inbox.take(3, 'message')).map((m) => m.data), ['1', '2', '3']);
  await onA.close();
  await onB.close();
});

test('the channel queries of either node count the subscribers of both', async () => {
  const [a, b] = nodes;
  const channel = `both-${uid('c')}`;
  const clients = [await a.wsHello({ user: uid('a'), channels: channel }),
    await b.wsHello({ user: uid('b'), channels: channel }),
    await b.wsHello({ user: uid('b'), channels: channel })];
  for (const node of nodes) {
    await waitFor(async () => {
      const res = await sdk(node).get({ path: `/channels/${channel}`, params: { info: 'subscription_count' } });
      const json = await res.json();
      return json.occupied === true && json.subscription_count === 3;
    }, 5000, `node ${node.port} counts 3 subscribers of ${channel}`);
    const listed = await (await sdk(node).get({ path: '/channels', params: { filter_by_prefix: 'both-' } })).json();
    assert.ok(channel in listed.channels, JSON.stringify(listed));
  }
  const info = await (await sdk(a).trigger(channel, 'x', 'y', { info: 'subscription_count' })).json();
  assert.deepEqual(info, { channels: { [channel]: { subscription_count: 3 } } });
  for (const c of clients) await c.close();
  for (const node of nodes) {
    await waitFor(async () => {
      const json = await (await sdk(node).get({ path: `/channels/${channel}` })).json();
      return json.occupied === false;
    }, 5000, `node ${node.port} sees ${channel} vacated`);
  }
});

test('terminateUserConnections on one node ends the user\'s connections on both (4009), and no other', async () => {
  const [a, b] = nodes;
  const ann = [await pusherClient(a, app, { user: { id: 'ann' } }), await pusherClient(b, app, { user: { id: 'ann' } })];
  const bob = await pusherClient(b, app, { user: { id: 'bob' } });
  for (const c of [...ann, bob]) {
    c.pusher.signin();
    await c.pusher.user.signinDonePromise;
  }
  await sdk(a).terminateUserConnections('ann');
  for (const c of ann) {
    const e = await c.next((m) => m.event === 'pusher:error', 'pusher:error 4009', 5000);
    assert.equal(e.data.code, 4009);
    await waitFor(() => c.pusher.connection.state !== 'connected', 3000, 'ann disconnected');
  }
  assert.equal(bob.pusher.connection.state, 'connected');
  bob.close();
});

// Last: it stops Redis.
test('with Redis gone, a trigger is 503 saying nothing was published', async () => {
  await redis.stop();
  const [a] = nodes;
  const e = await sdk(a).trigger(['gone-1', 'gone-2'], 'x', 'y').then(
    (res) => assert.fail(`accepted with ${res.status}`), (err) => err);
  assert.equal(e.status, 503, e.body);
  assert.match(e.body, /; 0 of 2 messages were published$/u);
});
