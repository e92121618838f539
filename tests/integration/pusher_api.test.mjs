// The Pusher HTTP API at /apps/{app_id}/... (docs/pusher.md, "HTTP API") driven by the real
// `pusher` server SDK from npm (tests/package.json) against the built binary: trigger to one and
// several channels, triggerBatch, the channel queries, terminateUserConnections, and every refusal
// as Pusher gives it. Each answer is also held to docs/openapi.yaml's schema for it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import net from 'node:net';
import Pusher from 'pusher';
import { startServer, request, uid, waitFor } from './harness.mjs';
import { loadDocument, schemaValidator } from './openapi.mjs';

const require = createRequire(import.meta.url);
// The SDK's own request signing, for the requests the SDK would never send (a body that is not the
// one signed).
const { createSignedQueryString } = require('pusher/lib/requests');
const Token = require('pusher/lib/token');

const app = { appId: 'shop-1', key: 'ringcast-key-1', secret: 'ringcast-secret-1' };
const doc = loadDocument();
const validate = schemaValidator(doc);
let srv;
let pusher;

before(async () => {
  srv = await startServer(['--threads', '2', '--pusher-app-id', app.appId, '--pusher-key', app.key,
    '--pusher-secret', app.secret]);
  pusher = sdk();
});
after(async () => { await srv?.stop(); });

// An SDK client of the server, with `app` changed by `overrides`.
function sdk(overrides = {}) {
  return new Pusher({ ...app, ...overrides, host: srv.host, port: String(srv.port), useTLS: false });
}

// The body of an SDK answer, held to the document's schema.
async function answer(promise, schema) {
  const res = await promise;
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'application/json');
  const json = await res.json();
  const errors = validate(`#/components/schemas/${schema}`, json);
  assert.equal(errors, null, `${JSON.stringify(json)} against ${schema}: ${JSON.stringify(errors)}`);
  return json;
}

// The SDK's RequestError of a refused request, its text body held to the document.
async function refused(promise, status, what) {
  const e = await promise.then(
    (res) => assert.fail(`${what}: accepted with ${res.status}`),
    (err) => err);
  assert.equal(e.name, 'PusherRequestError', `${what}: ${e.stack}`);
  assert.equal(e.status, status, `${what}: ${e.status} ${e.body}`);
  assert.equal(typeof e.body, 'string');
  assert.ok(e.body.length > 0, `${what}: an empty body`);
  return e.body;
}

// A ringcast WebSocket client of `channels`, after its hello.
function ringcastClient(channels) {
  return srv.wsHello({ user: uid('shopper'), channels: channels.join(',') });
}

test('trigger to one channel reaches a ringcast WebSocket client of that channel, data as the string the SDK sent', async () => {
  const ws = await ringcastClient(['sale']);
  const json = await answer(pusher.trigger('sale', 'App\\Events\\OrderShipped', { id: 7, total: '9.99' }),
    'PusherEventAnswer');
  assert.deepEqual(json, {});
  const m = await ws.next('message');
  assert.equal(m.channel, 'sale');
  // The SDK JSON.stringify's an object; ringcast relays that string untouched.
  assert.equal(m.data, '{"id":7,"total":"9.99"}');
  await ws.close();
});

test('trigger to several channels: each client gets it once, a channel named twice once', async () => {
  const a = await ringcastClient(['shoes']);
  const b = await ringcastClient(['hats']);
  const both = await ringcastClient(['shoes', 'hats']);
  const none = await ringcastClient(['socks']);
  await answer(pusher.post({ path: '/events',
    body: { name: 'promo', data: 'twenty percent', channels: ['shoes', 'hats', 'shoes'] } }), 'PusherEventAnswer');
  assert.equal((await a.next('message')).data, 'twenty percent');
  assert.equal((await b.next('message')).data, 'twenty percent');
  const got = await both.inbox.take(2, 'message');
  assert.deepEqual(got.map((m) => m.channel).sort(), ['hats', 'shoes']);
  await a.none('message', 200);
  await both.none('message', 0);
  await none.none('message', 0);
  await pusher.trigger(['shoes', 'hats'], 'promo', 'again');
  assert.equal((await a.next('message')).data, 'again');
  for (const c of [a, b, both, none]) await c.close();
});

test('triggerBatch publishes every event in the batch\'s order', async () => {
  const ws = await ringcastClient(['batch-a', 'batch-b']);
  const batch = Array.from({ length: 10 }, (_, i) => ({
    channel: i % 2 ? 'batch-b' : 'batch-a', name: `step-${i}`, data: { i } }));
  assert.deepEqual(await answer(pusher.triggerBatch(batch), 'PusherBatchAnswer'), {});
  const got = await ws.inbox.take(10, 'message');
  assert.deepEqual(got.map((m) => JSON.parse(m.data).i), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.deepEqual(got.map((m) => m.channel), batch.map((e) => e.channel));
  await ws.close();
});

test('sendToUser publishes on #server-to-user-{id}, a hub channel no ringcast client can name', async () => {
  const before = (await srv.stats()).messages.published;
  assert.deepEqual(await answer(pusher.sendToUser('ann@example.com', 'notice', { n: 1 }), 'PusherEventAnswer'), {});
  assert.equal((await srv.stats()).messages.published, before + 1);
  // Through the ringcast door the name is refused ('#' is no identifier character).
  const refusedConnect = await srv.wsRefused({ user: uid('u'), channels: '#server-to-user-ann' });
  assert.equal(refusedConnect.status, 400);
});

test('a channel nobody is on is occupied:false, not an error', async () => {
  assert.deepEqual(await answer(pusher.get({ path: '/channels/nobody-here' }), 'PusherChannel'),
    { occupied: false });
  assert.deepEqual(await answer(pusher.get({ path: '/channels/presence-nobody',
    params: { info: 'user_count,subscription_count' } }), 'PusherChannel'),
  { occupied: false, user_count: 0, subscription_count: 0 });
  assert.deepEqual(await answer(pusher.get({ path: '/channels/presence-nobody/users' }), 'PusherUsers'),
    { users: [] });
});

test('the channel queries and info count the subscribers of every loop, both doors\' (a channel is the hub channel)', async () => {
  const channel = `counted-${uid('c')}`;
  const clients = [];
  // Three users: their sessions live on the loops their names hash to (--threads 2).
  for (let i = 0; i < 3; i++) clients.push(await ringcastClient([channel]));
  assert.deepEqual(await answer(pusher.get({ path: `/channels/${channel}`, params: { info: 'subscription_count' } }),
    'PusherChannel'), { occupied: true, subscription_count: 3 });
  const listed = await answer(pusher.get({ path: '/channels', params: { filter_by_prefix: 'counted-' } }), 'PusherChannels');
  assert.deepEqual(listed.channels[channel], {});
  const unlisted = await answer(pusher.get({ path: '/channels', params: { filter_by_prefix: 'other-' } }), 'PusherChannels');
  assert.equal(channel in unlisted.channels, false);
  assert.deepEqual(await answer(pusher.trigger([channel, 'nobody-on-it'], 'x', 'y', { info: 'subscription_count' }),
    'PusherEventAnswer'),
  { channels: { [channel]: { subscription_count: 3 }, 'nobody-on-it': { subscription_count: 0 } } });
  assert.deepEqual(await answer(pusher.triggerBatch([
    { channel, name: 'x', data: 'y', info: 'subscription_count' },
    { channel: 'nobody-on-it', name: 'x', data: 'y' }]), 'PusherBatchAnswer'),
  { batch: [{ subscription_count: 3 }, {}] });
  await clients[0].close();
  await waitFor(async () => {
    const json = await (await pusher.get({ path: `/channels/${channel}`, params: { info: 'subscription_count' } })).json();
    return json.subscription_count === 2;
  }, 3000, 'a closed client no longer counted');
  for (const c of clients.slice(1)) await c.close();
  await waitFor(async () => {
    const json = await (await pusher.get({ path: `/channels/${channel}` })).json();
    return json.occupied === false;
  }, 3000, 'the channel vacated');
});

test('a request signed with another secret is 401, and the answer never holds the expected signature', async () => {
  const ws = await ringcastClient(['guarded']);
  const before = (await srv.stats()).messages.published;
  const wrong = sdk({ secret: 'not-the-secret' });
  const body = await refused(wrong.trigger('guarded', 'x', 'forged'), 401, 'wrong secret');
  assert.match(body, /^Invalid signature: auth_signature is not the HMAC-SHA256 with the app secret of "POST\\n\/apps\/shop-1\/events\\nauth_key=ringcast-key-1&auth_timestamp=\d+&auth_version=1.0&body_md5=[0-9a-f]{32}"$/u);
  // Neither the signature the right secret gives for that request, nor any hex of its length.
  assert.doesNotMatch(body, /[0-9a-f]{64}/u);
  await refused(wrong.get({ path: '/channels' }), 401, 'wrong secret, GET');
  await refused(wrong.terminateUserConnections('42'), 401, 'wrong secret, terminate');
  await refused(wrong.triggerBatch([{ channel: 'guarded', name: 'x', data: 'forged' }]), 401, 'wrong secret, batch');
  await ws.none('message', 200);
  assert.equal((await srv.stats()).messages.published, before, 'a forged request published');
  await ws.close();
});

test('a timestamp more than 600 s away is 401 Timestamp expired; 600 s is still accepted', async () => {
  const realNow = Date.now;
  const at = (offsetS, call) => {
    Date.now = () => realNow() + offsetS * 1000;  // the SDK reads the clock as it signs
    try { return call(); } finally { Date.now = realNow; }
  };
  for (const offset of [-700, 700]) {
    const body = await refused(at(offset, () => pusher.trigger('sale', 'x', 'late')), 401, `${offset} s`);
    assert.match(body, /^Timestamp expired: Given timestamp \(\d+\) not within 600s of server time \(\d+\)$/u);
  }
  // A few seconds inside the window either way (the clocks of the test and the server are one).
  for (const offset of [-590, 590]) await answer(at(offset, () => pusher.trigger('sale', 'x', 'in time')), 'PusherEventAnswer');
});

test('a body that is not the one body_md5 names is 401, and a body without body_md5 too', async () => {
  const ws = await ringcastClient(['md5']);
  const path = `/apps/${app.appId}/events`;
  const signedBody = JSON.stringify({ name: 'x', data: 'signed', channels: ['md5'] });
  const sentBody = JSON.stringify({ name: 'x', data: 'swapped', channels: ['md5'] });
  const token = new Token(app.key, app.secret);
  const query = createSignedQueryString(token, { method: 'POST', path, body: signedBody });
  const r = await request(srv.host, srv.port, 'POST', `${path}?${query}`,
    { headers: { 'Content-Type': 'application/json' }, body: sentBody });
  assert.equal(r.status, 401, r.text);
  assert.equal(r.text, 'Invalid body_md5: it is not the MD5 of the body received');
  // Signed without a body, sent with one.
  const bare = createSignedQueryString(token, { method: 'POST', path });
  const r2 = await request(srv.host, srv.port, 'POST', `${path}?${bare}`,
    { headers: { 'Content-Type': 'application/json' }, body: sentBody });
  assert.equal(r2.status, 401, r2.text);
  assert.equal(r2.text, 'Missing parameter: body_md5 (the request has a body)');
  await ws.none('message', 200);
  await ws.close();
});

test('an unknown app id is 404, an unknown key 401, a missing auth parameter 401', async () => {
  assert.equal(await refused(sdk({ appId: 'shop-2' }).trigger('sale', 'x', 'y'), 404, 'app id'),
    'Unknown app: no app with that id here');
  assert.equal(await refused(sdk({ key: 'other-key' }).trigger('sale', 'x', 'y'), 401, 'key'),
    'Unknown auth_key');
  const r = await request(srv.host, srv.port, 'GET', `/apps/${app.appId}/channels?auth_key=${app.key}`);
  assert.equal(r.status, 401);
  assert.equal(r.text, 'Missing parameter: auth_timestamp');
  assert.match(r.headers['content-type'], /^text\/plain/u);
});

test('refusals of the body and query, each as Pusher gives them', async () => {
  // Each sent in turn (a refusal not yet awaited would be an unhandled rejection).
  const cases = [
    ['101 channels', () => pusher.post({ path: '/events',
      body: { name: 'x', data: 'y', channels: Array.from({ length: 101 }, (_, i) => `c${i}`) } }),
    400, 'channels: 101 given; at most 100'],
    ['11 events in a batch', () => pusher.triggerBatch(Array.from({ length: 11 }, () => ({ channel: 'c', name: 'x', data: 'y' }))),
      400, 'batch: 11 events; at most 10'],
    ['data over 10 KB', () => pusher.trigger('c', 'x', 'x'.repeat(10 * 1024 + 1)), 413, 'data is 10241 bytes; at most 10240'],
    ['no name', () => pusher.post({ path: '/events', body: { data: 'y', channel: 'c' } }), 400, 'Missing parameter: name'],
    ['a bad channel name', () => pusher.post({ path: '/events', body: { name: 'x', data: 'y', channel: 'a b' } }), 400, null],
    ['a bad socket_id', () => pusher.post({ path: '/events', body: { name: 'x', data: 'y', channel: 'c', socket_id: 'abc' } }),
      400, "socket_id 'abc' is not of the form digits.digits"],
    ['an unknown info attribute', () => pusher.get({ path: '/channels/c', params: { info: 'colour' } }),
      400, "info: unknown attribute 'colour' (user_count, subscription_count)"],
    ['user_count of a public channel', () => pusher.get({ path: '/channels/c', params: { info: 'user_count' } }), 400, null],
    ['users of a public channel', () => pusher.get({ path: '/channels/c/users' }), 400, null],
    ['user_count without the presence- prefix', () => pusher.get({ path: '/channels', params: { info: 'user_count' } }),
      400, 'info=user_count needs filter_by_prefix=presence-: only presence channels have users'],
    ['an unknown path', () => pusher.get({ path: '/channel/c' }), 404, null],
    ['a wrong method', () => pusher.get({ path: '/events' }), 405, 'use POST'],
  ];
  for (const [what, send, status, text] of cases) {
    const body = await refused(send(), status, what);
    if (text) assert.equal(body, text, what);
  }
});

test('a body over the limit is 413 from its header, before it is read or signed', async () => {
  // Only the header is sent: the answer comes without a byte of the body.
  const socket = net.connect(srv.port, srv.host);
  let text = '';
  socket.setEncoding('utf8');
  socket.on('data', (c) => { text += c; });
  socket.write(`POST /apps/${app.appId}/events?auth_key=${app.key} HTTP/1.1\r\nHost: ${srv.host}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${256 * 1024 + 1}\r\n\r\n`);
  await waitFor(() => text.includes('\r\n\r\n'), 3000, 'an answer to the header');
  socket.destroy();
  assert.match(text, /^HTTP\/1\.1 413 /u);
});
