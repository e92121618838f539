// Client tokens (docs/security.md "Client tokens"): --client-secret (HS256) and
// --client-public-key (RS256/ES256) make /ws, /sse and /poll require a JWT. Tokens are minted here
// with node:crypto only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, startServer, uid } from './harness.mjs';

const SECRET = 'integration-test-secret';
const b64u = (data) => Buffer.from(data).toString('base64url');
const nowS = () => Math.floor(Date.now() / 1000);

function jwt(header, claims, signer) {
  const input = `${b64u(JSON.stringify(header))}.${b64u(JSON.stringify(claims))}`;
  return `${input}.${signer(input)}`;
}
const hs256 = (claims, secret = SECRET) =>
  jwt({ alg: 'HS256', typ: 'JWT' }, claims, (i) => createHmac('sha256', secret).update(i).digest('base64url'));
const rs256 = (claims, privateKey) =>
  jwt({ alg: 'RS256', typ: 'JWT' }, claims, (i) => sign('sha256', Buffer.from(i), privateKey).toString('base64url'));
const es256 = (claims, privateKey) =>
  jwt({ alg: 'ES256', typ: 'JWT' }, claims, (i) =>
    sign('sha256', Buffer.from(i), { key: privateKey, dsaEncoding: 'ieee-p1363' }).toString('base64url'));
const unsigned = (claims) => jwt({ alg: 'none', typ: 'JWT' }, claims, () => '');

const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const pem = (key) => key.export({ type: 'spki', format: 'pem' });
const dir = mkdtempSync(path.join(os.tmpdir(), 'ringcast-auth-'));
const rsaFile = path.join(dir, 'rsa.pem');
const ecFile = path.join(dir, 'ec.pem');
writeFileSync(rsaFile, pem(rsa.publicKey));
writeFileSync(ecFile, pem(ec.publicKey));

let hs; // --client-secret, --demo
let rs; // --client-public-key (RSA), --require-exp
before(async () => {
  [hs, rs] = await Promise.all([
    startServer(['--client-secret', SECRET, '--demo']),
    startServer(['--client-public-key', rsaFile, '--require-exp']),
  ]);
});
after(async () => {
  await Promise.all([hs?.stop(), rs?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

// The refusal of one connect on each transport: [{status, json, headers}] for ws, sse, poll.
async function refusals(srv, params, headers = {}) {
  const ws = await srv.wsRefused(params);
  const sse = await srv.sse(params, headers);
  const poll = await srv.poll(params, { headers });
  return [['ws', ws], ['sse', { status: sse.status, json: sse.json, headers: sse.headers }], ['poll', poll]];
}

async function assertRefused(srv, params, status, code, what) {
  for (const [transport, r] of await refusals(srv, params)) {
    assert.equal(r.status, status, `${what} over ${transport}: ${r.status} ${JSON.stringify(r.json)}`);
    assert.equal(r.json?.error, code, `${what} over ${transport}: ${JSON.stringify(r.json)}`);
    assert.equal(typeof r.json.message, 'string');
    if (status === 401) assert.equal(r.headers['www-authenticate'], 'Bearer', `${what} over ${transport}`);
  }
}

test('a missing, forged, unsigned or expired token is 401 on every transport; nothing is created', async () => {
  const s0 = await hs.stats();
  const exp = nowS() + 60;
  const cases = [
    ['no token', { user: 'alice' }],
    ['garbage', { token: 'not-a-jwt' }],
    ['wrong secret', { token: hs256({ sub: 'alice', exp }, 'another-secret') }],
    ['alg none', { token: unsigned({ sub: 'alice', exp }) }],
    ['RS256 where HS256 is expected', { token: rs256({ sub: 'alice', exp }, rsa.privateKey) }],
    ['expired', { token: hs256({ sub: 'alice', exp: nowS() - 1 }) }],
    ['no sub', { token: hs256({ exp }) }],
  ];
  for (const [what, params] of cases) await assertRefused(hs, params, 401, 'unauthorized', what);
  // The Authorization header is checked the same way.
  const header = { Authorization: `Bearer ${hs256({ sub: 'alice', exp }, 'another-secret')}` };
  const sse = await hs.sse({}, header);
  assert.equal(sse.status, 401);
  const poll = await hs.poll({}, { headers: { Authorization: 'Basic YTpi' } });
  assert.equal(poll.status, 401);
  const s1 = await hs.stats();
  assert.equal(s1.sessions.total, s0.sessions.total, 'a refused connect created a session');
});

test('a token that disagrees with user=, sid= or channels= is 403 forbidden; nothing is created', async () => {
  const s0 = await hs.stats();
  const exp = nowS() + 60;
  const token = hs256({ sub: 'alice', sid: 'tab1', channels: ['news', 'deals'], exp });
  await assertRefused(hs, { token, user: 'mallory' }, 403, 'forbidden', 'another user');
  await assertRefused(hs, { token, sid: 'tab2' }, 403, 'forbidden', 'another sid');
  await assertRefused(hs, { token, channels: 'news,secret' }, 403, 'forbidden', 'a channel outside the token');
  const s1 = await hs.stats();
  assert.equal(s1.sessions.total, s0.sessions.total, 'a refused connect created a session');
});

test('a valid token names the session: sub is the user (user= optional), sid from the token', async () => {
  const user = uid('alice');
  const exp = nowS() + 60;
  const ws = await hs.wsHello({ token: hs256({ sub: user, exp }) });
  assert.equal(ws.hello.session, `${user}/0`);
  const same = await hs.wsHello({ token: hs256({ sub: user, exp }), user, sid: 'tab7' });
  assert.equal(same.hello.session, `${user}/tab7`);
  const sse = await hs.sseHello({}, { Authorization: `Bearer ${hs256({ sub: user, sid: 'tabS', exp })}` });
  assert.equal(sse.hello.session, `${user}/tabS`);
  // A poll with the header: held, then answered by a message for that user.
  const held = hs.poll({ since: ws.hello.last_id }, { headers: { Authorization: `Bearer ${hs256({ sub: user, sid: 'p', exp })}` } });
  await hs.statsUntil((s) => s.connections.poll >= 1, 3000, 'the poll to be held');
  await hs.publish({ user, data: { hi: 1 } });
  const r = await held;
  assert.equal(r.status, 200, r.text);
  assert.equal(r.json.messages[0].data.hi, 1);
});

test('a connection whose token expires gets close/expired at exp; a fresh token resumes with since', async () => {
  const user = uid('exp');
  // exp is whole seconds: 2-3 s from now.
  const exp = nowS() + 3;
  const ws = await hs.wsHello({ token: hs256({ sub: user, exp }) });
  const sse = await hs.sseHello({ token: hs256({ sub: user, sid: 'sse', exp }) });
  const first = await hs.publish({ user, data: { n: 1 } });
  await ws.next('message');
  const closed = await ws.next('close', 5000);
  const closedAt = Date.now();
  assert.equal(closed.reason, 'expired');
  assert.ok(closedAt >= exp * 1000 - 30, `closed ${exp * 1000 - closedAt} ms before exp`);
  assert.ok(closedAt <= exp * 1000 + 300, `closed ${closedAt - exp * 1000} ms after exp`);
  await ws.waitClosed();
  const sseClose = await sse.next('close', 1000);
  assert.equal(sseClose.event, 'close');
  assert.equal(sseClose.json.reason, 'expired');
  await sse.waitEnded();

  const stats = await hs.stats();
  assert.ok(stats.expirations.expired >= 2, JSON.stringify(stats.expirations));

  // Published while it had no connection: the reconnect with a new token and since gets it.
  const missed = await hs.publish({ user, data: { n: 2 } });
  const again = await hs.wsHello({ token: hs256({ sub: user, exp: nowS() + 60 }), since: first.id });
  assert.equal(again.hello.resumed, true);
  const m = await again.next('message');
  assert.equal(m.id, missed.id);
});

test('a held poll is answered close/expired when its token expires before the poll timeout', async () => {
  const exp = nowS() + 2;
  const r = await hs.poll({ token: hs256({ sub: uid('p'), exp }) });
  assert.equal(r.status, 200);
  assert.deepEqual(r.json, { type: 'close', reason: 'expired' });
  assert.ok(Date.now() >= exp * 1000 - 30);
});

test('a WebSocket subscribe outside the token channels is error/unauthorized; the connection stays', async () => {
  const user = uid('ch');
  const ws = await hs.wsHello({ token: hs256({ sub: user, channels: ['news', 'deals'], exp: nowS() + 60 }), channels: 'news' });
  ws.send({ type: 'subscribe', channels: ['deals', 'secret'] });
  const err = await ws.next('error');
  assert.equal(err.code, 'unauthorized');
  ws.send({ type: 'subscribe', channels: ['deals'] });
  await ws.sync();
  await hs.publish({ channel: 'secret', data: 's' });
  const deal = await hs.publish({ channel: 'deals', data: 'd' });
  const m = await ws.next('message');
  assert.equal(m.id, deal.id, 'the refused subscribe must not have subscribed to any of its channels');
  assert.ok(ws.isOpen());
});

test('RS256 public key with --require-exp: exp is required, HS256 forged with the public key is refused', async () => {
  const user = uid('rs');
  const ok = await rs.wsHello({ token: rs256({ sub: user, exp: nowS() + 60 }, rsa.privateKey) });
  assert.equal(ok.hello.session, `${user}/0`);
  await assertRefused(rs, { token: rs256({ sub: user }, rsa.privateKey) }, 401, 'unauthorized', 'no exp');
  await assertRefused(rs, { token: hs256({ sub: user, exp: nowS() + 60 }, pem(rsa.publicKey)) }, 401,
    'unauthorized', 'algorithm confusion');
  const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
  await assertRefused(rs, { token: rs256({ sub: user, exp: nowS() + 60 }, other.privateKey) }, 401,
    'unauthorized', 'another key');
});

test('ES256 public key: an EC P-256 signature verifies', async () => {
  const srv = await startServer(['--client-public-key', ecFile]);
  try {
    assert.match(srv.log, /client tokens required \(ES256\)/);
    const user = uid('es');
    const ws = await srv.wsHello({ token: es256({ sub: user, exp: nowS() + 60 }, ec.privateKey) });
    assert.equal(ws.hello.session, `${user}/0`);
    await assertRefused(srv, { token: rs256({ sub: user }, rsa.privateKey) }, 401, 'unauthorized', 'RS256');
  } finally {
    await srv.stop();
  }
});

test('POST /demo/token mints a short-lived token with --demo and --client-secret only', async () => {
  const r = await hs.get('/demo/token');
  assert.equal(r.status, 200, r.text);
  assert.deepEqual(r.json, { required: true, mint: true });
  assert.equal((await hs.admin('PUT', '/demo/token', { token: null })).status, 405);
  const minted = await hs.admin('POST', '/demo/token', { token: null, body: { user: 'guest-1' } });
  assert.equal(minted.status, 200, minted.text);
  assert.ok(minted.json.expires_in > 0 && minted.json.expires_in <= 600);
  const ws = await hs.wsHello({ token: minted.json.token });
  assert.equal(ws.hello.session, 'guest-1/0');
  const bad = await hs.admin('POST', '/demo/token', { token: null, body: { user: 'no spaces' } });
  assert.equal(bad.status, 400);
  // No --demo, or no secret: there is no such path.
  const noDemo = await rs.admin('POST', '/demo/token', { token: null, body: { user: 'guest-1' } });
  assert.equal(noDemo.status, 404);
  assert.deepEqual((await rs.get('/demo/token')).json, { required: true, mint: false });
});

test('without a secret or key the server runs open and says so once; /demo/token mints nothing', async () => {
  const srv = await startServer(['--demo']);
  try {
    assert.equal(srv.log.match(/client endpoints are open/g)?.length, 1, srv.log);
    const ws = await srv.wsHello({ user: 'anyone' });
    assert.equal(ws.hello.session, 'anyone/0');
    const r = await srv.admin('POST', '/demo/token', { token: null, body: { user: 'guest-1' } });
    assert.equal(r.status, 404);
    // What the storefront asks first, so that it never POSTs here.
    assert.deepEqual((await srv.get('/demo/token')).json, { required: false, mint: false });
  } finally {
    await srv.stop();
  }
});

function run(args) {
  return new Promise((resolve, reject) => {
    const p = spawn(BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    p.stderr.setEncoding('utf8').on('data', (c) => { err += c; });
    const t = setTimeout(() => { p.kill('SIGKILL'); reject(new Error(`${args.join(' ')} still running`)); }, 5000);
    p.on('exit', (code) => { clearTimeout(t); resolve({ code, err }); });
  });
}

test('an unreadable or invalid key file, or --require-exp alone, exits 2 with one line', async () => {
  const missing = await run(['--client-public-key', path.join(dir, 'missing.pem')]);
  assert.equal(missing.code, 2);
  assert.match(missing.err, /^ringcast: --client-public-key: cannot read '.*missing\.pem'\n$/u);
  const junk = path.join(dir, 'junk.pem');
  writeFileSync(junk, 'not a key\n');
  const invalid = await run(['--client-public-key', junk]);
  assert.equal(invalid.code, 2);
  assert.match(invalid.err, /^ringcast: --client-public-key: .*junk\.pem: expected a PEM public key.*\n$/u);
  const alone = await run(['--require-exp']);
  assert.equal(alone.code, 2);
  assert.equal(alone.err, 'ringcast: --require-exp: needs --client-secret or --client-public-key\n');
});

// The browser client (web/ringcast.js) in Node: `ws` stands in for the browser's WebSocket.
test('ringcast.js getToken: called before every connect; close/expired reconnects with since, losing nothing', async () => {
  globalThis.WebSocket ??= (await import('ws')).default;
  await import('../../web/ringcast.js');
  for (const transport of ['ws', 'poll']) {
    const user = uid(`lib${transport}`);
    // What happened when, for the failure message: a wait that runs out says what the client saw.
    const started = Date.now();
    const events = [];
    const note = (...what) => events.push([Date.now() - started, ...what]);
    const calls = [];
    let published = null;
    const client = new globalThis.RingcastClient({
      url: `${hs.base}/`,
      user,
      transport,
      getToken: async () => {
        calls.push(Date.now());
        note('getToken', calls.length);
        // While the client waits for its second token, a message is published: the reconnect's
        // `since` must bring it.
        if (calls.length === 2) published = await hs.publish({ user, data: { n: 2 } });
        return hs256({ sub: user, exp: nowS() + (calls.length === 1 ? 2 : 60) });
      },
    });
    const received = [];
    const statuses = [];
    client.on('message', (m) => { received.push(m.data.n); note('message', m.id); });
    client.on('status', (s) => { statuses.push(s.reason); note(s.state, s.reason); });
    const wait = async (ok, ms, what) => {
      try {
        await waitUntil(ok, ms, what);
      } catch (err) {
        err.message += `\n${transport} client: ${JSON.stringify(events)}\nserver log:\n${hs.logTail(20)}`;
        throw err;
      }
    };
    client.connect();
    try {
      // This user's session is attached (online), not just some connection of the server's: a
      // connection an earlier test left open made the count true too early, the publish then
      // came before this session (CI run of c07548a, ASan) and hello's last_id was past it.
      await wait(async () => (await hs.admin('GET', `/admin/presence?user=${user}`)).json?.online === true,
        3000, `${transport} connected`);
      note('published', (await hs.publish({ user, data: { n: 1 } })).id);
      await wait(() => received.length >= 1, 5000, 'the first message');
      await wait(() => calls.length >= 2 && published, 5000, 'a second token after close/expired');
      note('published meanwhile', published.id);
      await wait(() => received.length >= 2, 10000, `the message published meanwhile (${transport})`);
      note('published', (await hs.publish({ user, data: { n: 3 } })).id);
      await wait(() => received.length >= 3, 5000, 'a message on the new connection');
      assert.deepEqual(received, [1, 2, 3], transport);
      assert.ok(statuses.includes('expired'), `${transport}: ${JSON.stringify(statuses)}`);
      assert.equal(calls.length, 2, `${transport}: one token per connect`);
    } finally {
      client.close();
    }
  }
});

async function waitUntil(fn, ms, what) {
  const deadline = Date.now() + ms;
  while (!(await fn())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
