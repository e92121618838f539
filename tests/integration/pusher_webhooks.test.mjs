// Pusher's webhooks (docs/pusher.md, "Webhooks") from the built binary to a backend's receiver
// (pusher_webhook_receiver.mjs, which checks each with the real `pusher` SDK's webhook
// verification): channel_occupied / channel_vacated as a channel (the hub channel of that name,
// here through the ringcast door) gains its first session and loses its last, batched, and
// retried while the receiver answers 500 (counted in /metrics).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Pusher from 'pusher';
import { sleep, startServer, uid, waitFor } from './harness.mjs';
import { pusherClient } from './pusher_client.mjs';
import { startWebhookReceiver } from './pusher_webhook_receiver.mjs';

const app = { appId: '4242', key: 'hook-key', secret: 'hook-secret' };
const appFlags = ['--pusher-app-id', app.appId, '--pusher-key', app.key, '--pusher-secret', app.secret];
const sdk = new Pusher({ ...app, host: '127.0.0.1' });

test('channel_occupied and channel_vacated, signed as the pusher SDK checks, with Content-Type application/json', async () => {
  const receiver = await startWebhookReceiver(app);
  const srv = await startServer([...appFlags, '--pusher-webhook-url', receiver.url, '--hook-flush', '100ms']);
  try {
    const a = await srv.wsHello({ user: uid('a'), sid: 's1', channels: 'sale' });
    const b = await srv.wsHello({ user: uid('b'), sid: 's2', channels: 'sale' });  // already occupied
    await a.close();
    await b.close();
    await waitFor(() => receiver.accepted().length >= 2, 5000, 'occupied and vacated');
    assert.deepEqual(receiver.accepted(), [
      { name: 'channel_occupied', channel: 'sale' },
      { name: 'channel_vacated', channel: 'sale' },
    ]);
    for (const p of receiver.posts) {
      assert.equal(p.valid, true, p.rawBody);
      assert.equal(p.headers['content-type'], 'application/json');
      assert.equal(p.headers['x-pusher-key'], app.key);
      assert.ok(Math.abs(p.time.getTime() - Date.now()) < 10000);
    }
    // A body changed by one byte is refused by the same check.
    const p = receiver.posts[0];
    const changed = sdk.webhook({ headers: p.headers, rawBody: p.rawBody.replace('sale', 'sald') });
    assert.equal(changed.isValid(), false);
  } finally {
    await srv.stop();
    await receiver.close();
  }
});

test('a receiver answering 500 gets the same events again, signed again, until it accepts them', async () => {
  const receiver = await startWebhookReceiver(app, (n) => (n < 2 ? 500 : 200));
  const srv = await startServer([...appFlags, '--pusher-webhook-url', receiver.url, '--hook-flush', '50ms']);
  try {
    const c = await srv.wsHello({ user: uid('c'), sid: 's1', channels: 'flash' });
    await waitFor(() => receiver.accepted().length >= 1, 10000, 'accepted after two refusals');
    assert.equal(receiver.posts.length, 3);
    for (const p of receiver.posts) {
      assert.equal(p.valid, true);
      assert.deepEqual(p.events, [{ name: 'channel_occupied', channel: 'flash' }]);
    }
    // The server counts the 200 when it reads it, a moment after the receiver sent it.
    let metrics = '';
    await waitFor(async () => {
      metrics = (await srv.get('/metrics')).text;
      return /^ringcast_pusher_webhook_events_sent_total 1$/mu.test(metrics);
    }, 3000, 'the accepted event counted');
    assert.match(metrics, /^ringcast_pusher_webhook_retries_total 2$/mu);
    assert.match(metrics, /^ringcast_pusher_webhook_failures_total 2$/mu);
    assert.match(metrics, /^ringcast_pusher_webhook_queue 0$/mu);
    assert.match(metrics, /^ringcast_pusher_webhook_up 1$/mu);
    await c.close();
  } finally {
    await srv.stop();
    await receiver.close();
  }
});

test('a draining node sends the webhooks that wait, the vacated ones of its last sessions included, before it exits', async () => {
  const receiver = await startWebhookReceiver(app);
  // A flush interval far beyond the drain: only the drain can send these.
  const srv = await startServer([...appFlags, '--pusher-webhook-url', receiver.url, '--hook-flush', '30s',
    '--drain', '1s']);
  const room = uid('room');
  await srv.wsHello({ user: uid('d'), sid: 's1', channels: room });
  await sleep(100);
  assert.equal(receiver.posts.length, 0);
  await srv.stop({ closeClients: false });
  assert.deepEqual(receiver.accepted(), [
    { name: 'channel_occupied', channel: room },
    { name: 'channel_vacated', channel: room },
  ]);
  await receiver.close();
});

test('pusher-js clients: member_added / member_removed once per user however many connections, client_event with user_id, cache_miss', async () => {
  const receiver = await startWebhookReceiver(app);
  const srv = await startServer([...appFlags, '--pusher-client-events', '--pusher-webhook-url', receiver.url,
    '--hook-flush', '50ms']);
  const clients = [];
  try {
    const room = `presence-${uid('room')}`;
    const ann1 = await pusherClient(srv, app, { user: { id: 'ann', info: { n: 1 } } });
    const ann2 = await pusherClient(srv, app, { user: { id: 'ann', info: { n: 1 } } });
    const ben = await pusherClient(srv, app, { user: { id: 'ben' } });
    clients.push(ann1, ann2, ben);
    const annRoom = await ann1.subscribe(room);
    await ann2.subscribe(room);
    await ben.subscribe(room);
    annRoom.trigger('client-wave', { hi: 1 });
    const cache = `cache-${uid('price')}`;
    await ben.subscribe(cache);  // nothing published on it yet
    await waitFor(() => receiver.accepted().length >= 5, 5000, 'five webhooks');
    ann1.close();  // ann is still there through ann2
    await sleep(300);
    ann2.close();
    ben.close();
    await waitFor(() => receiver.events(room).length >= 6, 5000, 'the room emptied');
    const seen = receiver.events(room).map((e) => `${e.name} ${e.user_id ?? ''}`.trim());
    assert.deepEqual(seen.slice(0, 4), ['channel_occupied', 'member_added ann', 'member_added ben',
      'client_event ann']);
    // ann's last connection and ben's end at once: removed in the order the server saw them end.
    assert.deepEqual(seen.slice(4, 6).sort(), ['member_removed ann', 'member_removed ben']);
    assert.deepEqual(seen.slice(6), ['channel_vacated']);
    const wave = receiver.events(room).find((e) => e.name === 'client_event');
    assert.equal(wave.event, 'client-wave');
    assert.deepEqual(JSON.parse(wave.data), { hi: 1 });
    assert.equal(wave.socket_id, ann1.socketId);
    assert.ok(receiver.events(cache).some((e) => e.name === 'cache_miss'));
    assert.ok(receiver.posts.every((p) => p.valid));
  } finally {
    for (const c of clients) c.close();
    await srv.stop();
    await receiver.close();
  }
});

// The sender of a client event is excluded from it (docs/pusher.md, "Client events"), and so from
// what counts its deliveries: ringcast_messages_delivered_total rises by the one other
// subscriber, and the client_event webhook is sent once. Failed on the hub that counted every
// addressee (the sender's session too): 2.
test('a client event is counted delivered to the other subscribers only, not to its excluded sender', async () => {
  const receiver = await startWebhookReceiver(app);
  const srv = await startServer([...appFlags, '--pusher-client-events', '--pusher-webhook-url', receiver.url,
    '--hook-flush', '50ms']);
  const clients = [];
  try {
    const chat = `private-${uid('chat')}`;
    const ann = await pusherClient(srv, app);
    const ben = await pusherClient(srv, app);
    clients.push(ann, ben);
    const annChat = await ann.subscribe(chat);
    await ben.subscribe(chat);
    const delivered = async () => Number(/^ringcast_messages_delivered_total (\d+)$/mu
      .exec((await srv.get('/metrics')).text)[1]);
    const before = await delivered();
    annChat.trigger('client-typing', { on: true });
    await ben.next((m) => m.channel === chat && m.event === 'client-typing', 'ben hears it');
    await waitFor(() => receiver.events(chat).some((e) => e.name === 'client_event'), 5000, 'the webhook');
    await sleep(300);  // every loop has counted what it delivered
    assert.equal(await delivered() - before, 1);
    assert.equal(ann.frames.filter((m) => m.event === 'client-typing').length, 0);
    assert.equal(receiver.events(chat).filter((e) => e.name === 'client_event').length, 1);
  } finally {
    for (const c of clients) c.close();
    await srv.stop();
    await receiver.close();
  }
});
