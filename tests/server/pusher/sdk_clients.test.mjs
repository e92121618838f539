// Step 3 of the cross-check with the real SDKs (tests/server/CMakeLists.txt): the frames the C++
// core made in step 2 (pusher_sdk_check, from the SDK's auth strings and published data) are
// served by a WebSocket replay server to the real pusher-js and Laravel Echo, which must read
// them as Pusher's own (socket id, events with double-encoded data, presence members, a refused
// subscription, a cache miss, sign-in and a server-to-user event); and the `pusher` SDK's webhook
// check accepts the core's signed webhook. Nothing here is ringcast's server: the door is not yet
// wired to the hub (docs/pusher.md).
import { strict as assert } from 'node:assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { test, after } from 'node:test';
import { WebSocketServer } from 'ws';
import PusherJs from 'pusher-js';
import Echo from 'laravel-echo';
import PusherSdk from 'pusher';

const dir = process.env.RINGCAST_PUSHER_SDK_DIR;
assert.ok(dir, 'run through ctest: RINGCAST_PUSHER_SDK_DIR names the fixtures of steps 1 and 2');
const sdk = JSON.parse(readFileSync(join(dir, 'sdk_made.json'), 'utf8'));
const core = JSON.parse(readFileSync(join(dir, 'ringcast_made.json'), 'utf8'));

// Plays the core's frames: connection_established on connect, then each channel's frames when the
// client subscribes to it and the sign-in frames when it signs in.
const urls = [];
const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
wss.on('connection', (ws, req) => {
  urls.push(req.url);
  ws.send(core.connection_established);
  ws.on('message', (raw) => {
    const frame = JSON.parse(raw.toString());
    if (frame.event === 'pusher:subscribe')
      for (const reply of core.on_subscribe[frame.data.channel] ?? []) ws.send(reply);
    if (frame.event === 'pusher:signin') {
      assert.equal(frame.data.auth, sdk.signin.auth);
      for (const reply of core.on_signin) ws.send(reply);
    }
  });
});
await once(wss, 'listening');
after(() => wss.close());

// The settings a shop changes to move onto ringcast (docs/pusher.md), with the auth strings the
// SDK made standing in for the shop's auth endpoint.
const authFor = {
  'private-refused': { auth: `${sdk.app.key}:0000` },
  'presence-room': { auth: sdk.presence.auth, channel_data: sdk.presence.channel_data },
};
const clientOptions = {
  wsHost: '127.0.0.1',
  wsPort: wss.address().port,
  forceTLS: false,
  enabledTransports: ['ws'],
  cluster: 'unused',
  channelAuthorization: {
    customHandler: ({ channelName }, callback) => callback(null, authFor[channelName]),
  },
  userAuthentication: { customHandler: (_params, callback) => callback(null, sdk.signin) },
};

// The first time `emitter` emits `event`, with its arguments.
const next = (emitter, event) =>
  new Promise((resolve) => {
    const handler = (...args) => {
      emitter.unbind(event, handler);
      resolve(args);
    };
    emitter.bind(event, handler);
  });

test('pusher-js reads the core frames as Pusher frames', async () => {
  const client = new PusherJs(sdk.app.key, clientOptions);
  try {
    await next(client.connection, 'connected');
    assert.equal(client.connection.socket_id, core.socket_id);
    assert.match(urls.at(-1), new RegExp(`^/app/${sdk.app.key}\\?protocol=7&`));

    const orders = client.subscribe('orders');
    const [shipped] = await next(orders, 'App\\Events\\OrderShipped');
    assert.deepEqual(shipped, { id: 1, total: '9.99' });

    // The frames come at once: every handler is bound before the first one is awaited.
    const room = client.subscribe('presence-room');
    const events = Promise.all([
      next(room, 'pusher:subscription_succeeded'),
      next(room, 'pusher:member_added'),
      next(room, 'client-typing'),
      next(room, 'pusher:member_removed'),
    ]);
    const [[members], [added], [typing, metadata], [removed]] = await events;
    assert.equal(members, room.members);
    assert.deepEqual(members.me, { id: 42, info: { name: 'Ann "the admin"', tags: ['a', 'b'] } });
    assert.deepEqual(added, { id: '8', info: null });
    assert.deepEqual(typing, { on: true });
    assert.equal(metadata.user_id, '8');
    assert.deepEqual(removed, { id: '7', info: { name: 'Bob' } });
    // 42 and 7 from subscription_succeeded, 8 added, 7 removed.
    assert.equal(room.members.count, 2);
    assert.deepEqual(Object.keys(room.members.members).sort(), ['42', '8']);

    const [refusal] = await next(client.subscribe('private-refused'), 'pusher:subscription_error');
    assert.equal(refusal.type, 'AuthError');
    assert.equal(refusal.status, 401);
    assert.match(refusal.error, /invalid signature/);

    const cache = client.subscribe('cache-empty');
    await Promise.all([next(cache, 'pusher:subscription_succeeded'), next(cache, 'pusher:cache_miss')]);

    const notice = next(client.user, 'notice');
    client.signin();
    await client.user.signinDonePromise;
    assert.equal(client.user.user_data.id, 'ann@example.com');
    assert.deepEqual((await notice)[0], { text: 'hi' });
  } finally {
    client.disconnect();
  }
});

test('Laravel Echo listens, joins a presence channel and hears a whisper', async () => {
  const echo = new Echo({ broadcaster: 'pusher', key: sdk.app.key, Pusher: PusherJs, ...clientOptions });
  try {
    const shipped = new Promise((resolve) => echo.channel('orders').listen('OrderShipped', resolve));
    assert.deepEqual(await shipped, { id: 1, total: '9.99' });

    const room = echo.join('room');
    const [here, joining, whisper, leaving] = await Promise.all([
      new Promise((resolve) => room.here(resolve)),
      new Promise((resolve) => room.joining(resolve)),
      new Promise((resolve) => room.listenForWhisper('typing', resolve)),
      new Promise((resolve) => room.leaving(resolve)),
    ]);
    // Echo lists the members in the order of JavaScript's object keys (integers ascending).
    assert.deepEqual(here, [{ name: 'Bob' }, { name: 'Ann "the admin"', tags: ['a', 'b'] }]);
    assert.equal(joining, null);
    assert.deepEqual(whisper, { on: true });
    assert.deepEqual(leaving, { name: 'Bob' });
  } finally {
    echo.disconnect();
  }
});

test("the pusher SDK's webhook check accepts the core's signed webhook", () => {
  const { body, key, signature, content_type } = core.webhook;
  const headers = { 'x-pusher-key': key, 'x-pusher-signature': signature, 'content-type': content_type };
  const pusher = new PusherSdk(sdk.app);
  const hook = pusher.webhook({ headers, rawBody: body });
  assert.ok(hook.isValid());
  assert.equal(hook.getTime().getTime(), 1700000000123);
  assert.deepEqual(
    hook.getEvents().map((e) => e.name),
    ['channel_occupied', 'member_added', 'client_event', 'member_removed', 'channel_vacated', 'cache_miss'],
  );
  assert.deepEqual(hook.getEvents()[2], {
    name: 'client_event',
    channel: 'presence-room',
    event: 'client-typing',
    socket_id: sdk.socket_id,
    data: '{"on":true}',
    user_id: '42',
  });
  // Any other body, key, secret or content type is refused.
  assert.ok(!pusher.webhook({ headers, rawBody: body.replace('orders', 'orderz') }).isValid());
  assert.ok(!pusher.webhook({ headers: { ...headers, 'x-pusher-key': 'other' }, rawBody: body }).isValid());
  assert.ok(!new PusherSdk({ ...sdk.app, secret: 'other' }).webhook({ headers, rawBody: body }).isValid());
  assert.ok(
    !pusher.webhook({ headers: { ...headers, 'content-type': 'application/json; charset=utf-8' }, rawBody: body }).isValid(),
  );
});
