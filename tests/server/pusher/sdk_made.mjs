// Step 1 of the cross-check with the real SDKs (tests/server/CMakeLists.txt, fixtures pusher_sdk):
// the `pusher` npm SDK makes what a shop's backend makes — channel auth (authorizeChannel), user
// sign-in auth (authenticateUser) and HTTP API requests (trigger, triggerBatch, get, sendToUser,
// terminateUserConnections), the latter captured byte for byte as the SDK sends them to a local
// HTTP server — and writes them to DIR/sdk_made.json for pusher_sdk_check (the C++ core) to verify.
//   node sdk_made.mjs DIR
import { createServer } from 'node:http';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Pusher from 'pusher';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node sdk_made.mjs DIR');

const app = { appId: '4242', key: 'sdk-key-0123', secret: 'sdk-secret-4567' };
const socketId = '1234.5678';

// Every request the SDK sends, as received: method, path and query as sent, body, and the
// server's clock at that moment (the signature's timestamp window is checked against it).
const requests = [];
const server = createServer((req, res) => {
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const [path, query = ''] = req.url.split(/\?(.*)/s);
    requests.push({ method: req.method, path, query, body, now: Math.floor(Date.now() / 1000) });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{}');
  });
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const pusher = new Pusher({
  ...app,
  host: '127.0.0.1',
  port: String(server.address().port),
  useTLS: false,
});

const presenceData = { user_id: 42, user_info: { name: 'Ann "the admin"', tags: ['a', 'b'] } };
const user = { id: 'ann@example.com', user_info: { name: 'Ann' }, watchlist: ['bob'] };
const made = {
  app,
  socket_id: socketId,
  private: { channel: 'private-orders', ...pusher.authorizeChannel(socketId, 'private-orders') },
  presence: {
    channel: 'presence-room',
    ...pusher.authorizeChannel(socketId, 'presence-room', presenceData),
  },
  signin: pusher.authenticateUser(socketId, user),
};

// One request of each kind the HTTP API has, named for the check.
const calls = {
  trigger: () => pusher.trigger('orders', 'App\\Events\\OrderShipped', { id: 1, total: '9.99' }),
  trigger_many: () =>
    pusher.trigger(['sale', 'cache-sale'], 'promo', 'plain text', {
      socket_id: '1.2',
      info: 'subscription_count,user_count',
    }),
  batch: () =>
    pusher.triggerBatch([
      { channel: 'orders', name: 'a', data: { x: 1 } },
      { channel: 'presence-room', name: 'b', data: 'y', info: 'user_count' },
    ]),
  channels: () =>
    pusher.get({ path: '/channels', params: { filter_by_prefix: 'presence-', info: 'user_count' } }),
  channel: () =>
    pusher.get({ path: '/channels/presence-room', params: { info: 'user_count,subscription_count' } }),
  users: () => pusher.get({ path: '/channels/presence-room/users' }),
  send_to_user: () => pusher.sendToUser('ann@example.com', 'notice', { text: 'hi' }),
  terminate: () => pusher.terminateUserConnections('ann@example.com'),
};
made.requests = {};
for (const [name, call] of Object.entries(calls)) {
  const before = requests.length;
  await call();
  if (requests.length !== before + 1) throw new Error(`${name}: expected one request`);
  made.requests[name] = requests[before];
}
server.close();

mkdirSync(dir, { recursive: true });
writeFileSync(join(dir, 'sdk_made.json'), JSON.stringify(made, null, 2));
console.log(`pusher SDK: ${Object.keys(made.requests).length} requests and 3 auth strings in ${dir}`);
