// Who may receive what (issue 26; docs/security.md, "Threat model: identity, tokens, TLS"): channels
// granted by the connect hook are enforced as a token's are, token claims (aud, iss, crit, a far
// exp) are checked, and an ack counts only for a message that was sent to that session.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import http from 'node:http';
import { startServer, uid } from './harness.mjs';

const SECRET = 'identity-grants-secret';
const b64u = (data) => Buffer.from(data).toString('base64url');
const nowS = () => Math.floor(Date.now() / 1000);
// An HS256 token; `claims` may be raw JSON text (for numbers JSON.stringify cannot write).
function hs256(claims, header = { alg: 'HS256', typ: 'JWT' }) {
  const body = typeof claims === 'string' ? claims : JSON.stringify(claims);
  const input = `${b64u(JSON.stringify(header))}.${b64u(body)}`;
  return `${input}.${createHmac('sha256', SECRET).update(input).digest('base64url')}`;
}

// A connect hook that grants by the user's prefix: `free-…` gets ["free"], `both-…` gets
// ["free", "vip"].
const backend = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const q = JSON.parse(Buffer.concat(chunks).toString());
    const [kind] = q.user.split('-');
    const channels = { free: ['free'], both: ['free', 'vip'] }[kind] ?? [];
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ channels }));
  });
});
await new Promise((r) => backend.listen(0, '127.0.0.1', r));
const HOOK = `http://127.0.0.1:${backend.address().port}/connect`;
after(() => {
  backend.closeAllConnections();
  backend.close();
});

test('channels granted by the connect hook are enforced: a subscribe outside them is refused and nothing of them arrives', async () => {
  const srv = await startServer(['--connect-hook', HOOK]);
  try {
    const c = await srv.wsHello({ user: uid('free-'), channels: 'vip' });
    // The backend's answer replaced the channels asked for; vip is outside the grant.
    c.send({ type: 'subscribe', channels: ['vip'] });
    const err = await c.next((m) => m.type === 'error', 3000);
    assert.equal(err.code, 'unauthorized');
    await srv.publish({ channel: 'vip', data: { members: 'only' } });
    const { id } = await srv.publish({ channel: 'free', data: { everyone: 1 } });
    const m = await c.next((x) => x.type === 'message', 3000);
    assert.equal(m.id, id, `got ${JSON.stringify(m)} from outside the grant`);
    await c.sync();
    await c.none((x) => x.type === 'message' && x.channel === 'vip', srv.quietMs);
    // Within the grant a subscribe works as always.
    c.send({ type: 'unsubscribe', channels: ['free'] });
    c.send({ type: 'subscribe', channels: ['free'] });
    await c.sync();
    assert.equal(c.messages.filter((x) => x.type === 'error').length, 1);
  } finally {
    await srv.stop();
  }
});

test('a token and the hook both granting: the session may join what both allow', async () => {
  const srv = await startServer(['--connect-hook', HOOK, '--client-secret', SECRET]);
  try {
    const user = uid('both-');
    const token = hs256({ sub: user, channels: ['free', 'news'], exp: nowS() + 60 });
    const c = await srv.wsHello({ token });
    for (const channel of ['vip', 'news']) {
      c.send({ type: 'subscribe', channels: [channel] });
      const err = await c.next((m) => m.type === 'error', 3000);
      assert.equal(err.code, 'unauthorized', channel);
    }
    // Listening to the hook's channels within the token's: free, not vip.
    await srv.publish({ channel: 'vip', data: 1 });
    const { id } = await srv.publish({ channel: 'free', data: 2 });
    assert.equal((await c.next((x) => x.type === 'message', 3000)).id, id);
  } finally {
    await srv.stop();
  }
});

test('--client-audience and --client-issuer: a token for another audience or issuer is refused 401', async () => {
  const srv = await startServer(['--client-secret', SECRET, '--client-audience', 'shop',
    '--client-issuer', 'https://auth.shop.example']);
  try {
    const exp = nowS() + 60;
    const iss = 'https://auth.shop.example';
    for (const claims of [
      { sub: 'a', aud: 'billing-api', iss, exp },
      { sub: 'a', aud: ['billing-api'], iss, exp },
      { sub: 'a', iss, exp },
      { sub: 'a', aud: 'shop', exp },
      { sub: 'a', aud: 'shop', iss: 'https://evil.example', exp },
    ]) {
      const r = await srv.wsRefused({ token: hs256(claims) });
      assert.equal(r.status, 401, JSON.stringify(claims));
      assert.equal(r.json.error, 'unauthorized');
    }
    await srv.wsHello({ token: hs256({ sub: uid('a'), aud: 'shop', iss, exp }) });
    await srv.wsHello({ token: hs256({ sub: uid('a'), aud: ['billing-api', 'shop'], iss, exp }) });
  } finally {
    await srv.stop();
  }
});

test('a token whose header has crit is refused 401 (RFC 7515 §4.1.11)', async () => {
  const srv = await startServer(['--client-secret', SECRET]);
  try {
    const claims = { sub: uid('c'), exp: nowS() + 60 };
    const r = await srv.wsRefused({ token: hs256(claims, { alg: 'HS256', crit: ['exp'], exp: 1 }) });
    assert.equal(r.status, 401);
    assert.match(r.json.message, /crit/u);
    await srv.wsHello({ token: hs256(claims) });
  } finally {
    await srv.stop();
  }
});

test('an exp far in the future (the year 3000, 2^63-1) keeps the connection open', async () => {
  const srv = await startServer(['--client-secret', SECRET]);
  try {
    const clients = [];
    for (const exp of ['32503680000', '9223372036854775807']) {
      const c = await srv.wsHello({ token: hs256(`{"sub":"${uid('far')}","exp":${exp}}`) });
      clients.push(c);
    }
    // Closed `expired` at once on main: give it many ticks.
    for (const c of clients) {
      await c.none((m) => m.type === 'close', 10 * srv.tickMs + 200);
      assert.ok(c.isOpen());
      await c.sync();
    }
    assert.equal((await srv.stats()).expirations.expired, 0);
  } finally {
    await srv.stop();
  }
});

test('an ack counts only for a message that was sent to that session', async () => {
  const srv = await startServer();
  try {
    const before = await srv.publish({ data: 'before bob' });
    const bob = await srv.wsHello({ user: uid('bob'), channels: 'news' });
    const alice = await srv.wsHello({ user: uid('alice') });
    const toAlice = await srv.publish({ user: alice.hello.session.split('/')[0], data: 1 });
    const vip = await srv.publish({ channel: 'vip', data: 2 });
    const news = await srv.publish({ channel: 'news', data: 3 });
    await bob.next((m) => m.type === 'message' && m.id === news.id, 3000);
    for (const m of [before, toAlice, vip]) bob.send({ type: 'ack', id: m.id });
    await bob.sync();
    for (const m of [before, toAlice, vip]) {
      const r = await srv.admin('GET', `/admin/messages/${m.id}`);
      assert.equal(r.json.acked, 0, `message ${m.id}: ${r.text}`);
    }
    bob.send({ type: 'ack', id: news.id });
    await bob.sync();
    assert.equal((await srv.admin('GET', `/admin/messages/${news.id}`)).json.acked, 1);
    const stats = await srv.stats();
    assert.equal(stats.messages.acked, 1);
    assert.equal(stats.messages.acks_refused, 3);
    const metrics = (await srv.get('/metrics')).text;
    assert.match(metrics, /^ringcast_acks_refused_total 3$/mu);
  } finally {
    await srv.stop();
  }
});
