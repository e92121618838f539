// The Pusher HTTP API with Pusher clients on the other end (docs/pusher.md, "HTTP API"): the real
// `pusher` SDK publishes, queries and terminates; real `pusher-js` clients (in Node) connect to the
// built binary's /app/{key}, authorized by the SDK's authorizeChannel and authenticateUser as a
// shop's auth endpoint would.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import PusherJs from 'pusher-js';
import Pusher from 'pusher';
import { startServer, uid, waitFor } from './harness.mjs';

const app = { appId: 'door-1', key: 'door-key-1', secret: 'door-secret-1' };
let srv;
let sdk;
const clients = [];

before(async () => {
  srv = await startServer(['--threads', '2', '--pusher-app-id', app.appId, '--pusher-key', app.key,
    '--pusher-secret', app.secret]);
  sdk = new Pusher({ ...app, host: srv.host, port: String(srv.port), useTLS: false });
});
after(async () => {
  for (const c of clients) c.disconnect();
  await srv?.stop();
});

// A pusher-js client of the server, once connected; `user` is who it signs in as (presence data
// and pusher:signin, both signed by the SDK).
async function pusherJs(user = uid('user')) {
  const client = new PusherJs(app.key, {
    wsHost: srv.host, wsPort: srv.port, forceTLS: false, enabledTransports: ['ws'], cluster: 'unused',
    channelAuthorization: {
      customHandler: ({ socketId, channelName }, callback) => callback(null,
        sdk.authorizeChannel(socketId, channelName,
          channelName.startsWith('presence-') ? { user_id: user, user_info: { name: user } } : undefined)),
    },
    userAuthentication: {
      customHandler: ({ socketId }, callback) => callback(null, sdk.authenticateUser(socketId, { id: user })),
    },
  });
  clients.push(client);
  await next(client.connection, 'connected');
  return client;
}

// The first time `emitter` emits `event`, with its first argument.
function next(emitter, event, timeoutMs = 3000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${timeoutMs} ms`)), timeoutMs);
    const handler = (arg) => {
      clearTimeout(timer);
      emitter.unbind(event, handler);
      resolve(arg);
    };
    emitter.bind(event, handler);
  });
}

async function subscribed(client, channel) {
  const c = client.subscribe(channel);
  await next(c, 'pusher:subscription_succeeded');
  return c;
}

test('an event the SDK triggers reaches pusher-js with its name and data, and not the socket_id it excludes', async () => {
  const a = await pusherJs();
  const b = await pusherJs();
  const [onA, onB] = [await subscribed(a, 'sale'), await subscribed(b, 'sale')];
  const got = [next(onA, 'App\\Events\\Sale'), next(onB, 'App\\Events\\Sale')];
  await sdk.trigger('sale', 'App\\Events\\Sale', { pct: 20 });
  assert.deepEqual(await got[0], { pct: 20 });
  assert.deepEqual(await got[1], { pct: 20 });
  // Excluding a's socket: b gets it, a does not.
  const seenByA = [];
  onA.bind('promo', (d) => seenByA.push(d));
  const toB = next(onB, 'promo');
  await sdk.trigger('sale', 'promo', 'for b', { socket_id: a.connection.socket_id });
  assert.equal(await toB, 'for b');
  // a's own connection is live and subscribed: a later event reaches it, the excluded one did not.
  const later = next(onA, 'after');
  await sdk.trigger('sale', 'after', 'x');
  await later;
  assert.deepEqual(seenByA, []);
});

test('presence: GET channels/{name}/users, user_count and the list, each user once', async () => {
  const channel = `presence-${uid('room')}`;
  const ann1 = await pusherJs('ann');
  const ann2 = await pusherJs('ann');
  const bob = await pusherJs('bob');
  for (const c of [ann1, ann2, bob]) await subscribed(c, channel);
  const users = await (await sdk.get({ path: `/channels/${channel}/users` })).json();
  assert.deepEqual(users.users.map((u) => u.id).sort(), ['ann', 'bob']);
  const info = await (await sdk.get({ path: `/channels/${channel}`, params: { info: 'user_count,subscription_count' } })).json();
  assert.deepEqual(info, { occupied: true, user_count: 2, subscription_count: 3 });
  const listed = await (await sdk.get({ path: '/channels', params: { filter_by_prefix: 'presence-', info: 'user_count' } })).json();
  assert.deepEqual(listed.channels[channel], { user_count: 2 });
});

test('terminateUserConnections ends every connection signed in as the user (4009), and no other', async () => {
  const ann = [await pusherJs('ann-t'), await pusherJs('ann-t')];
  const bob = await pusherJs('bob-t');
  for (const c of [...ann, bob]) {
    c.signin();
    await c.user.signinDonePromise;
  }
  const errors = ann.map((c) => next(c.connection, 'error'));
  await sdk.terminateUserConnections('ann-t');
  for (const e of await Promise.all(errors)) assert.equal(e.data.code, 4009);
  for (const c of ann)
    await waitFor(() => c.connection.state !== 'connected', 3000, 'ann disconnected');
  assert.equal(bob.connection.state, 'connected');
  // bob still gets what is sent to him.
  const notice = next(bob.user, 'notice');
  await sdk.sendToUser('bob-t', 'notice', { text: 'hi' });
  assert.deepEqual(await notice, { text: 'hi' });
});
