// The Pusher WebSocket door at /app/{key} (docs/pusher.md) driven by the real pusher-js 8 in Node
// (tests/package.json) against the built binary, with the real `pusher` SDK as the shop's backend
// (its authorizeChannel / authenticateUser sign in the clients' auth handlers, its trigger and
// terminateUserConnections call the HTTP API): public, private, presence and cache channels,
// client events (the sender excluded, 10 a second), sign-in and the server-to-user channel,
// terminate, both doors onto one hub, and raw WebSocket clients for what pusher-js never does
// (an unknown key, a client that stops answering pings).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import PusherJs from 'pusher-js';
import Echo from 'laravel-echo';
import Pusher from 'pusher';
import { startServer, uid, waitFor, WsClient, sleep } from './harness.mjs';
import { pusherClient, eventOn } from './pusher_client.mjs';
import { startWebhookReceiver } from './pusher_webhook_receiver.mjs';

const app = { appId: 'door-app', key: 'door-key', secret: 'door-secret' };
const appFlags = ['--pusher-app-id', app.appId, '--pusher-key', app.key, '--pusher-secret', app.secret];
let srv;
let backend;

before(async () => {
  srv = await startServer(['--threads', '2', ...appFlags, '--pusher-client-events']);
  backend = new Pusher({ ...app, host: srv.host, port: String(srv.port), useTLS: false });
});
after(async () => { await srv?.stop(); });

// A pusher-js client of `server` (this file's by default), see pusher_client.mjs.
const client = ({ server = srv, ...rest } = {}) => pusherClient(server, app, rest);

test('connect: connection_established with a Pusher socket id and activity_timeout = --heartbeat', async () => {
  const raw = new WsClient(`ws://${srv.host}:${srv.port}/app/${app.key}?protocol=7&client=js&version=8.6.0`);
  const established = await raw.next((m) => m.event === 'pusher:connection_established');
  const data = JSON.parse(established.data);
  assert.match(data.socket_id, /^\d+\.\d+$/u);
  assert.equal(data.activity_timeout, 30);  // the harness's --heartbeat 30
  raw.socket.send(JSON.stringify({ event: 'pusher:ping', data: {} }));
  await raw.next((m) => m.event === 'pusher:pong');
  raw.socket.close();
  const c = await client();
  assert.match(c.socketId, /^\d+\.\d+$/u);
  assert.notEqual(c.socketId, data.socket_id);
  c.close();
});

test('a public channel gets a ringcast admin publish as a Pusher event: the publish\'s event name or "message", data parsed back', async () => {
  const c = await client();
  await c.subscribe('sale');
  const ringcast = await srv.wsHello({ user: uid('shopper'), channels: 'sale' });
  await srv.publish({ channel: 'sale', data: { price: 9, tags: ['a'] }, event: 'promo' });
  await srv.publish({ channel: 'sale', data: 'plain text' });
  const promo = await c.next(eventOn('sale', 'promo'), 'promo');
  assert.deepEqual(promo.data, { price: 9, tags: ['a'] });
  const plain = await c.next(eventOn('sale', 'message'), 'the default event');
  assert.equal(plain.data, 'plain text');
  // The ringcast client of the same channel got both, as ringcast envelopes.
  assert.deepEqual((await ringcast.next('message')).data, { price: 9, tags: ['a'] });
  assert.equal((await ringcast.next('message')).data, 'plain text');
  // A broadcast and a message to a ringcast user are not Pusher events.
  await srv.publish({ data: 'everyone' });
  await srv.publish({ channel: 'sale', data: 'after' });
  await c.next((m) => m.channel === 'sale' && m.data === 'after', 'after');
  assert.equal(c.frames.some((m) => m.data === 'everyone'), false);
  await ringcast.close();
  c.close();
});

test('the pusher SDK\'s trigger reaches pusher-js, and not the socket it names (socket_id)', async () => {
  const a = await client();
  const b = await client();
  await a.subscribe('shoes');
  await b.subscribe('shoes');
  await backend.trigger('shoes', 'App\\Events\\Restocked', { size: 42 }, { socket_id: a.socketId });
  assert.deepEqual((await b.next(eventOn('shoes', 'App\\Events\\Restocked'), 'restocked')).data, { size: 42 });
  await backend.trigger('shoes', 'after', 1);
  await a.next(eventOn('shoes', 'after'), 'after');
  assert.equal(a.frames.some(eventOn('shoes', 'App\\Events\\Restocked')), false);
  a.close();
  b.close();
});

test('private channels: the SDK\'s auth subscribes; a forged auth is a subscription_error 401 on that channel', async () => {
  const c = await client();
  await c.subscribe('private-orders');
  const raw = new WsClient(`ws://${srv.host}:${srv.port}/app/${app.key}?protocol=7`);
  const established = await raw.next((m) => m.event === 'pusher:connection_established');
  const socketId = JSON.parse(established.data).socket_id;
  raw.socket.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel: 'private-orders', auth: `${app.key}:${'0'.repeat(64)}` } }));
  const refused = await raw.next((m) => m.event === 'pusher:subscription_error');
  assert.equal(refused.channel, 'private-orders');
  const data = JSON.parse(refused.data);
  assert.equal(data.type, 'AuthError');
  assert.equal(data.status, 401);
  // Signed for another socket: refused too.
  const other = backend.authorizeChannel(c.socketId, 'private-orders');
  raw.socket.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel: 'private-orders', auth: other.auth } }));
  await waitFor(() => raw.messages.filter((m) => m.event === 'pusher:subscription_error').length === 2, 3000, 'second refusal');
  // Signed for it: admitted.
  const own = backend.authorizeChannel(socketId, 'private-orders');
  raw.socket.send(JSON.stringify({ event: 'pusher:subscribe', data: { channel: 'private-orders', auth: own.auth } }));
  await raw.next((m) => m.event === 'pusher_internal:subscription_succeeded' && m.channel === 'private-orders');
  raw.socket.close();
  c.close();
});

test('presence channels: the member list, member_added and member_removed once per user, not per connection', async () => {
  const alice = await client({ user: { id: 'alice', info: { name: 'Alice' } } });
  const room = await alice.subscribe('presence-room');
  assert.equal(room.members.count, 1);
  assert.deepEqual(room.members.me, { id: 'alice', info: { name: 'Alice' } });
  const bob = await client({ user: { id: 'bob', info: { name: 'Bob' } } });
  const bobRoom = await bob.subscribe('presence-room');
  assert.equal(bobRoom.members.count, 2);
  assert.deepEqual(bobRoom.members.get('alice'), { id: 'alice', info: { name: 'Alice' } });
  const added = await alice.next(eventOn('presence-room', 'pusher_internal:member_added'), 'bob added');
  assert.deepEqual(added.data, { user_id: 'bob', user_info: { name: 'Bob' } });
  assert.equal(bob.frames.some(eventOn('presence-room', 'pusher_internal:member_added')), false);
  // Bob again on a second connection: one member, nobody told.
  const bob2 = await client({ user: { id: 'bob', info: { name: 'Bob' } } });
  assert.equal((await bob2.subscribe('presence-room')).members.count, 2);
  bob.close();
  await sleep(300);
  assert.equal(alice.frames.some(eventOn('presence-room', 'pusher_internal:member_removed')), false);
  bob2.close();
  const removed = await alice.next(eventOn('presence-room', 'pusher_internal:member_removed'), 'bob removed');
  assert.deepEqual(removed.data, { user_id: 'bob' });
  assert.equal(room.members.count, 1);
  alice.close();
});

test('cache channels: pusher:cache_miss when nothing was sent, else the last event on subscribe', async () => {
  const first = await client();
  const channel = first.pusher.subscribe('cache-prices');
  const miss = new Promise((resolve) => channel.bind('pusher:cache_miss', resolve));
  await miss;
  await srv.publish({ channel: 'cache-prices', data: { v: 1 }, event: 'price' });
  await srv.publish({ channel: 'cache-prices', data: { v: 2 }, event: 'price' });
  await first.next((m) => m.channel === 'cache-prices' && m.data?.v === 2, 'v2 live');
  const later = await client();
  await later.subscribe('cache-prices');
  const cached = await later.next(eventOn('cache-prices', 'price'), 'the cached event');
  assert.deepEqual(cached.data, { v: 2 });
  assert.equal(later.frames.some((m) => m.event === 'pusher:cache_miss'), false);
  first.close();
  later.close();
});

test('a sticky promotion in force on a channel reaches a Pusher client when it subscribes; once expired it does not', async () => {
  const flash = uid('flash');
  await srv.publish({ channel: flash, data: { off: 20 }, event: 'promo', sticky: true, ttl: '2s' });
  const c = await client();
  await c.subscribe(flash);
  assert.deepEqual((await c.next(eventOn(flash, 'promo'), 'the promotion in force')).data, { off: 20 });
  // A cache channel: the promotion is its last event, sent once, no cache_miss.
  const cached = `cache-${flash}`;
  await srv.publish({ channel: cached, data: { off: 30 }, event: 'promo', sticky: true, ttl: '2s' });
  await c.subscribe(cached);
  await c.next(eventOn(cached, 'promo'), 'the cached promotion');
  await sleep(200);
  assert.equal(c.frames.filter(eventOn(cached, 'promo')).length, 1);
  assert.equal(c.frames.some((m) => m.event === 'pusher:cache_miss'), false);
  await sleep(2000);
  const late = await client();
  await late.subscribe(flash);
  await sleep(200);
  assert.equal(late.frames.some(eventOn(flash, 'promo')), false);
  c.close();
  late.close();
});

test('client events: to the channel\'s other subscribers (and ringcast clients of it), never back to the sender, with user_id on presence', async () => {
  const a = await client({ user: { id: 'ann' } });
  const b = await client({ user: { id: 'ben' } });
  const chatA = await a.subscribe('private-chat');
  await b.subscribe('private-chat');
  const ringcast = await srv.wsHello({ user: uid('watcher'), channels: 'private-chat' });
  assert.equal(chatA.trigger('client-typing', { who: 'ann' }), true);
  const got = await b.next(eventOn('private-chat', 'client-typing'), 'typing at b');
  assert.deepEqual(got.data, { who: 'ann' });
  assert.equal(got.user_id, undefined);
  // The ringcast door sees it as a message whose data is the string the client sent.
  const seen = await ringcast.next('message');
  assert.equal(seen.channel, 'private-chat');
  assert.equal(seen.data, '{"who":"ann"}');
  chatA.trigger('client-after', 1);
  await b.next(eventOn('private-chat', 'client-after'), 'after');
  await sleep(100);
  assert.equal(a.frames.some((m) => m.event.startsWith('client-')), false);
  const roomA = await a.subscribe('presence-chat');
  await b.subscribe('presence-chat');
  roomA.trigger('client-wave', 'hi');
  const wave = await b.next(eventOn('presence-chat', 'client-wave'), 'wave');
  assert.equal(wave.user_id, 'ann');
  assert.equal(wave.data, 'hi');
  await ringcast.close();
  a.close();
  b.close();
});

test('client events: 10 a second per connection, the rest answered pusher:error; refused on public channels and when not subscribed', async () => {
  const a = await client();
  const b = await client();
  const chat = await a.subscribe('private-flood');
  await b.subscribe('private-flood');
  for (let i = 0; i < 15; i += 1) chat.trigger('client-n', i);
  await waitFor(() => a.frames.filter((m) => m.event === 'pusher:error').length === 5, 3000, 'five refusals');
  await sleep(200);
  const delivered = b.frames.filter(eventOn('private-flood', 'client-n')).map((m) => m.data);
  assert.deepEqual(delivered, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(a.frames.find((m) => m.event === 'pusher:error').data.code, 4301);
  // The connection goes on: a second later it may send again.
  await sleep(1100);
  chat.trigger('client-n', 'again');
  await b.next((m) => m.event === 'client-n' && m.data === 'again', 'again');
  const errors = () => a.frames.filter((m) => m.event === 'pusher:error').length;
  const before = errors();
  a.pusher.send_event('client-x', {}, 'sale');  // a public channel
  a.pusher.send_event('client-x', {}, 'private-elsewhere');  // not subscribed
  await waitFor(() => errors() === before + 2, 3000, 'two refusals');
  assert.equal(a.pusher.connection.state, 'connected');
  a.close();
  b.close();
});

test('client_event and cache_miss webhooks from the door, signed as the pusher SDK checks', async () => {
  const receiver = await startWebhookReceiver(app);
  const events = () => receiver.accepted();
  const hooked = await startServer([...appFlags, '--pusher-client-events', '--hook-flush', '50ms',
    '--pusher-webhook-url', receiver.url]);
  try {
    const ann = await client({ server: hooked, user: { id: 'ann' } });
    const ben = await client({ server: hooked, user: { id: 'ben' } });
    const room = await ann.subscribe('presence-hooks');
    await ben.subscribe('presence-hooks');
    room.trigger('client-typing', { on: true });
    await ben.next(eventOn('presence-hooks', 'client-typing'), 'typing');
    const cache = ann.pusher.subscribe('cache-hooks');
    await new Promise((resolve) => cache.bind('pusher:cache_miss', resolve));
    await waitFor(() => events().some((e) => e.name === 'cache_miss') && events().some((e) => e.name === 'client_event'),
      5000, 'both webhooks');
    assert.ok(receiver.posts.every((p) => p.valid));
    assert.deepEqual(events().find((e) => e.name === 'client_event'), {
      name: 'client_event', channel: 'presence-hooks', event: 'client-typing', data: '{"on":true}',
      socket_id: ann.socketId, user_id: 'ann',
    });
    assert.deepEqual(events().find((e) => e.name === 'cache_miss'), { name: 'cache_miss', channel: 'cache-hooks' });
    ann.close();
    ben.close();
  } finally {
    await hooked.stop();
    await receiver.close();
  }
});

test('client events are refused without --pusher-client-events', async () => {
  const other = await startServer(appFlags);
  try {
    const a = await client({ server: other });
    const chat = await a.subscribe('private-chat');
    chat.trigger('client-typing', {});
    const e = await a.next((m) => m.event === 'pusher:error', 'refusal');
    assert.match(e.data.message, /client events/u);
    a.close();
  } finally {
    await other.stop();
  }
});

test('signin: signin_success, the SDK\'s sendToUser reaches the user\'s connections, terminateUserConnections ends them with 4009', async () => {
  const user = { id: 'carol', user_info: { name: 'Carol' } };
  const a = await client({ user });
  const b = await client({ user });
  const other = await client({ user: { id: 'dave' } });
  for (const c of [a, b, other]) c.pusher.signin();
  for (const c of [a, b, other]) await c.next((m) => m.event === 'pusher:signin_success', 'signed in');
  await backend.sendToUser('carol', 'notice', { text: 'hello' });
  for (const c of [a, b]) {
    const m = await c.next((f) => f.event === 'notice', 'notice');
    assert.deepEqual(m.data, { text: 'hello' });
  }
  const closed = [a, b].map((c) => new Promise((resolve) => {
    c.pusher.connection.bind('message', (m) => { if (m.event === 'pusher:error') resolve(m.data.code); });
  }));
  const res = await backend.terminateUserConnections('carol');
  assert.equal(res.status, 200);
  assert.deepEqual(await Promise.all(closed), [4009, 4009]);
  await sleep(100);
  assert.equal(other.pusher.connection.state, 'connected');
  assert.equal(other.frames.some((m) => m.event === 'notice'), false);
  a.close();
  b.close();
  other.close();
});

test('Laravel Echo with pusher-js: a private channel\'s Laravel event, a presence channel\'s here/joining/leaving and a whisper', async () => {
  // As a Laravel app's resources/js/bootstrap.js configures it, with the SDK as its auth endpoint.
  const echoFor = (user) => new Echo({
    broadcaster: 'pusher',
    key: app.key,
    Pusher: PusherJs,
    wsHost: srv.host,
    wsPort: srv.port,
    forceTLS: false,
    enabledTransports: ['ws'],
    cluster: 'unused',
    authorizer: (channel) => ({
      authorize: (socketId, callback) => callback(null, backend.authorizeChannel(socketId, channel.name,
        channel.name.startsWith('presence-') ? { user_id: user.id, user_info: user.info } : undefined)),
    }),
  });
  const ann = echoFor({ id: 1, info: { name: 'Ann' } });
  const bob = echoFor({ id: 2, info: { name: 'Bob' } });
  try {
    const shipped = new Promise((resolve) => ann.private('orders').listen('OrderShipped', resolve));
    const subscribed = new Promise((resolve) => ann.connector.pusher.channel('private-orders').bind('pusher:subscription_succeeded', resolve));
    await subscribed;
    await backend.trigger('private-orders', 'App\\Events\\OrderShipped', { id: 1, total: '9.99' });
    assert.deepEqual(await shipped, { id: 1, total: '9.99' });

    const annRoom = ann.join('room');
    const here = await new Promise((resolve) => annRoom.here(resolve));
    assert.deepEqual(here, [{ name: 'Ann' }]);
    const joining = new Promise((resolve) => annRoom.joining(resolve));
    const whisper = new Promise((resolve) => annRoom.listenForWhisper('typing', resolve));
    const bobRoom = bob.join('room');
    assert.deepEqual(await new Promise((resolve) => bobRoom.here(resolve)), [{ name: 'Ann' }, { name: 'Bob' }]);
    assert.deepEqual(await joining, { name: 'Bob' });
    bobRoom.whisper('typing', { on: true });
    assert.deepEqual(await whisper, { on: true });
    const leaving = new Promise((resolve) => annRoom.leaving(resolve));
    bob.disconnect();
    assert.deepEqual(await leaving, { name: 'Bob' });
  } finally {
    ann.disconnect();
    bob.disconnect();
  }
});

test('an unknown key is upgraded, told pusher:error 4001 and closed with 4001; no app: /app/ is a 404', async () => {
  const raw = new WsClient(`ws://${srv.host}:${srv.port}/app/nope?protocol=7`);
  const e = await raw.next((m) => m.event === 'pusher:error');
  assert.equal(e.data.code, 4001);
  assert.equal((await raw.closed).code, 4001);
  const noProtocol = new WsClient(`ws://${srv.host}:${srv.port}/app/${app.key}`);
  assert.equal((await noProtocol.next((m) => m.event === 'pusher:error')).data.code, 4008);
  const closedDoor = await startServer([]);
  try {
    const refused = new WsClient(`ws://${closedDoor.host}:${closedDoor.port}/app/${app.key}?protocol=7`);
    await assert.rejects(refused.opened, (err) => err.status === 404);
  } finally {
    await closedDoor.stop();
  }
});

test('a client that stops answering is pinged at --heartbeat and closed 4201 at --idle-timeout', async () => {
  const quick = await startServer([...appFlags, '--heartbeat', '1', '--idle-timeout', '2']);
  try {
    const raw = new WsClient(`ws://${quick.host}:${quick.port}/app/${app.key}?protocol=7`, { autoPong: false });
    const established = await raw.next((m) => m.event === 'pusher:connection_established');
    assert.equal(JSON.parse(established.data).activity_timeout, 1);
    const start = Date.now();
    await raw.next((m) => m.event === 'pusher:ping', 3000);
    const e = await raw.next((m) => m.event === 'pusher:error', 4000);
    assert.equal(e.data.code, 4201);
    assert.equal((await raw.closed).code, 4201);
    assert.ok(Date.now() - start >= 1500, `closed after ${Date.now() - start} ms`);
    // pusher-js answers the server's pings and stays.
    const c = await client({ server: quick });
    await sleep(3000);
    assert.equal(c.pusher.connection.state, 'connected');
    c.close();
  } finally {
    await quick.stop();
  }
});
