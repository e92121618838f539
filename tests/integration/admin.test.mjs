// docs/protocol.md, "Admin and operations": admin and operations API; docs/admin-stats.md: the stats schema.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, uid, waitFor } from './harness.mjs';

let srv;
before(async () => { srv = await startServer(['--max-body', '100']); });
after(async () => { await srv?.stop(); });

function assertError(r, status, code, what) {
  assert.equal(r.status, status, `${what}: ${r.status} ${r.text}`);
  assert.ok(r.json && typeof r.json.error === 'string', `${what}: body not a JSON error: ${r.text}`);
  if (code) assert.equal(r.json.error, code, `${what}: ${r.text}`);
  assert.equal(typeof r.json.message, 'string', `${what}: ${r.text}`);
}

test('401 with WWW-Authenticate: Bearer for a missing or wrong token', async () => {
  const cases = [
    ['no header', { token: null }],
    ['wrong token', { token: 'wrong' }],
    ['right token with one char changed', { token: `${srv.token.slice(0, -1)}${srv.token.endsWith('a') ? 'b' : 'a'}` }],
    ['token prefix', { token: srv.token.slice(0, 8) }],
    ['token with extra', { token: `${srv.token}x` }],
    ['Basic scheme', { token: null, headers: { Authorization: `Basic ${Buffer.from(`a:${srv.token}`).toString('base64')}` } }],
  ];
  const s0 = await srv.stats();
  for (const [what, opts] of cases) {
    for (const [method, path, body] of [
      ['POST', '/admin/publish', { data: 'nope' }],
      ['POST', '/admin/kick', { user: 'x' }],
      ['GET', '/admin/stats', undefined],
    ]) {
      const r = await srv.admin(method, path, { ...opts, body });
      assertError(r, 401, 'unauthorized', `${what} ${method} ${path}`);
      assert.match(r.headers['www-authenticate'] ?? '', /^Bearer/, `${what} ${path}: WWW-Authenticate`);
    }
  }
  const s1 = await srv.stats();
  assert.equal(s1.messages.published, s0.messages.published, 'an unauthorized publish went through');
});

test('every /admin/ path asks for the token before it is routed: an unknown one is 401 too, so 404 tells nothing', async () => {
  for (const path of ['/admin/nope', '/admin/publish/x', '/admin/', '/admin/stats', '/admin/.env']) {
    for (const token of [null, 'wrong']) {
      const r = await srv.admin('GET', path, { token });
      assertError(r, 401, 'unauthorized', `${path} with token ${token}`);
      assert.match(r.headers['www-authenticate'] ?? '', /^Bearer/u, path);
    }
  }
  // With the token, an unknown path is a 404 as before.
  assertError(await srv.admin('GET', '/admin/nope'), 404, 'not_found', '/admin/nope with the token');
});

test('400 for malformed JSON and invalid bodies; the server stays up', async () => {
  const bad = [
    ['/admin/publish', '{"data": '],
    ['/admin/publish', 'not json'],
    ['/admin/publish', '[1,2]'],
    ['/admin/publish', '{"channel":"c"}'],
    ['/admin/publish', '{"data":1,"channel":"bad channel"}'],
    ['/admin/publish', '{"data":1,"user":""}'],
    ['/admin/kick', '{}'],
    ['/admin/kick', '{"user":"no good"}'],
    ['/admin/kick', '{"user":'],
  ];
  const s0 = await srv.stats();
  for (const [path, body] of bad) {
    const r = await srv.admin('POST', path, { body, headers: { 'Content-Type': 'application/json' } });
    assertError(r, 400, 'bad_request', `${path} ${body}`);
  }
  const s1 = await srv.stats();
  assert.equal(s1.messages.published, s0.messages.published);
  assert.equal((await srv.get('/healthz')).status, 200);
});

test('400 naming an unknown field on every admin body: a typo is never a broadcast', async () => {
  const user = uid('typo');
  const ws = await srv.wsHello({ user, channels: 'news' });
  const s0 = await srv.stats();
  for (const [path, body, field] of [
    ['/admin/publish', { data: { sale: 1 }, chanel: 'vip' }, 'chanel'],
    ['/admin/publish', { data: 1, usres: [user] }, 'usres'],
    ['/admin/publish', { data: 1, at: Date.now() + 60000, dealy: '1s' }, 'dealy'],
    ['/admin/kick', { user, reason: 'spam' }, 'reason'],
  ]) {
    const r = await srv.admin('POST', path, { body: JSON.stringify(body) });
    assertError(r, 400, 'bad_request', `${path} ${JSON.stringify(body)}`);
    assert.match(r.json.message, new RegExp(`^unknown field "${field}"`), r.text);
  }
  await ws.inbox.none((m) => m.type === 'message', 200);
  const s1 = await srv.stats();
  assert.equal(s1.messages.published, s0.messages.published, 'a publish with a typo went out');
  await srv.publish({ data: 'still here', channel: 'news' });
  await ws.next((m) => m.type === 'message' && m.data === 'still here');
  await ws.close();
});

test('400 for a key given twice in a publish or kick body (the last one does not silently win)', async () => {
  const user = uid('twice');
  const ws = await srv.wsHello({ user });
  const s0 = await srv.stats();
  for (const [path, body, key] of [
    ['/admin/publish', `{"data":{"sale":1},"users":["${user}"],"users":["nobody"]}`, 'users'],
    ['/admin/publish', '{"data":{"title":"a","title":"b"}}', 'title'],
    ['/admin/kick', `{"user":"${user}","user":"other"}`, 'user'],
  ]) {
    const r = await srv.admin('POST', path, { body });
    assertError(r, 400, 'bad_request', `${path} ${body}`);
    assert.equal(r.json.message, `the key "${key}" is given twice`, r.text);
  }
  await ws.inbox.none((m) => m.type === 'message' || m.type === 'close', 200);
  assert.equal((await srv.stats()).messages.published, s0.messages.published);
  await ws.close();
});

test('404 for unknown paths, 405 for a wrong method', async () => {
  for (const path of ['/nope', '/admin/nope', '/admin/publish/x', '/wsx']) {
    assertError(await srv.admin('GET', path), 404, 'not_found', path);
  }
  for (const [method, path] of [['GET', '/admin/publish'], ['GET', '/admin/kick'], ['POST', '/admin/stats'], ['DELETE', '/admin/publish'], ['POST', '/healthz'], ['POST', '/poll?user=a']]) {
    assertError(await srv.admin(method, path, { body: method === 'POST' ? '{}' : undefined }), 405, null, `${method} ${path}`);
  }
});

test('413 for a body over --max-body (100)', async () => {
  const s0 = await srv.stats();
  const body = JSON.stringify({ data: 'x'.repeat(150) });
  assertError(await srv.admin('POST', '/admin/publish', { body }), 413, 'too_large', 'big publish');
  assert.equal((await srv.stats()).messages.published, s0.messages.published);
  const small = await srv.publish({ data: 'x'.repeat(60) });
  assert.equal(typeof small.id, 'number');
});

test('publish replies {id, recipients} with K = live sessions it went to', async () => {
  const ch = uid('c');
  const u = uid('u');
  const a = await srv.wsHello({ user: u, sid: '1', channels: ch });
  const b = await srv.wsHello({ user: u, sid: '2' });
  const c = await srv.sseHello({ user: uid('v'), channels: ch });
  const gone = await srv.wsHello({ user: uid('gone') });
  await gone.close();
  await srv.statsUntil((s) => s.sessions.connected === 3, 3000, 'three connected');
  const all = await srv.publish({ data: 1 });
  assert.ok(Number.isInteger(all.id) && Number.isInteger(all.recipients), JSON.stringify(all));
  assert.equal(all.recipients, 3, 'a session without a connection is not a live recipient');
  assert.equal((await srv.publish({ channel: ch, data: 2 })).recipients, 2);
  assert.equal((await srv.publish({ user: u, data: 3 })).recipients, 2);
  assert.equal((await srv.publish({ user: uid('nobody'), data: 4 })).recipients, 0);
  await a.close();
  await b.close();
  c.close();
});

test('kick replies {kicked: K}; that user\'s connections get close/kicked, nobody else\'s', async () => {
  const u = uid('k');
  const a = await srv.wsHello({ user: u, sid: '1' });
  const b = await srv.wsHello({ user: u, sid: '2' });
  const s = await srv.sseHello({ user: u, sid: '3' });
  const other = await srv.wsHello({ user: uid('k2') });
  const s0 = await srv.stats();
  const r = await srv.kick(u);
  assert.equal(r.kicked, 3, JSON.stringify(r));
  for (const c of [a, b]) {
    assert.equal((await c.next('close')).reason, 'kicked');
    await c.waitClosed();
  }
  assert.equal((await s.next('close')).json.reason, 'kicked');
  await s.waitEnded();
  await other.sync();
  assert.ok(other.isOpen());
  const s1 = await srv.stats();
  assert.ok(s1.expirations.kicked >= s0.expirations.kicked + 3, JSON.stringify(s1.expirations));
  assert.equal((await srv.kick(uid('nobody'))).kicked, 0);
  await other.close();
});

const isCount = (v) => Number.isInteger(v) && v >= 0;
const sum = (a) => a.reduce((x, y) => x + y, 0);

test('/admin/stats follows docs/admin-stats.md and reflects connections, sessions and the wheel', async () => {
  const s0 = await srv.stats();
  assert.deepEqual(s0.node, { address: `${srv.host}:${srv.port}`, id: '' }, 'the node that answered, no cluster id');
  assert.ok(isCount(s0.uptime_ms));
  assert.ok(Number.isInteger(s0.threads) && s0.threads >= 1);
  for (const k of ['ws', 'sse', 'poll', 'total']) assert.ok(isCount(s0.connections[k]), `connections.${k}`);
  for (const k of ['total', 'connected']) assert.ok(isCount(s0.sessions[k]), `sessions.${k}`);
  for (const k of ['published', 'delivered', 'last_id']) assert.ok(isCount(s0.messages[k]), `messages.${k}`);
  for (const k of ['idle', 'poll_timeout', 'session_ttl', 'handshake', 'max_age', 'slow', 'kicked', 'replaced', 'expired', 'tls_failed', 'unused']) {
    assert.ok(isCount(s0.expirations[k]), `expirations.${k}`);
  }
  assert.ok(isCount(s0.sessions_reused));
  assert.ok(isCount(s0.moves.reconnect) && isCount(s0.moves.activity));
  const w = s0.wheel;
  for (const k of ['tick', 'tick_ms', 'slots', 'levels', 'armed']) assert.ok(isCount(w[k]), `wheel.${k}`);
  assert.equal(w.tick_ms, 20, 'wheel.tick_ms is --tick-ms');
  assert.ok(w.levels >= 2);
  assert.equal(w.occupancy.length, 2, 'occupancy of levels 0 and 1');
  for (const level of w.occupancy) {
    assert.equal(level.length, w.slots);
    assert.ok(level.every(isCount));
  }
  for (const k of ['scheduled', 'moved', 'cancelled', 'fired', 'cascaded']) assert.ok(isCount(w.counters[k]), `wheel.counters.${k}`);

  // Connect: 3 ws, 1 sse, 1 held poll, all new sessions.
  const ws = await Promise.all([1, 2, 3].map(() => srv.wsHello({ user: uid('st') })));
  const sse = await srv.sseHello({ user: uid('st') });
  const poll = srv.poll({ user: uid('st') });
  const s1 = await srv.statsUntil((s) => s.connections.poll === s0.connections.poll + 1, 3000, 'poll held');
  assert.equal(s1.connections.ws, s0.connections.ws + 3);
  assert.equal(s1.connections.sse, s0.connections.sse + 1);
  // Against s1's own counts, not s0's total: an earlier test's connection may still have been
  // closing at s0 and be gone at s1 (a sanitizer stage's CI run of 5553d32).
  const clientConnections = s1.connections.ws + s1.connections.sse + s1.connections.poll;
  assert.ok(s1.connections.total >= clientConnections, `total ${s1.connections.total} < ${clientConnections}`);
  assert.equal(s1.sessions.total, s0.sessions.total + 5);
  assert.equal(s1.sessions.connected, s0.sessions.connected + 5);
  assert.ok(s1.wheel.armed >= s0.wheel.armed + 5, `armed ${s0.wheel.armed} -> ${s1.wheel.armed}`);
  const occ0 = sum(s0.wheel.occupancy.flat());
  const occ1 = sum(s1.wheel.occupancy.flat());
  assert.ok(occ1 >= occ0 + 5, `occupancy ${occ0} -> ${occ1} after 5 new sessions`);
  assert.ok(occ1 <= s1.wheel.armed, 'more nodes in slots than armed');
  assert.ok(s1.wheel.counters.scheduled >= s0.wheel.counters.scheduled + 5);
  assert.ok(s1.uptime_ms >= s0.uptime_ms);

  const pub = await srv.publish({ data: 'count me' });
  assert.equal(pub.recipients, 5);
  await poll;
  await Promise.all(ws.map((c) => c.next('message')));
  await sse.next('message');
  const s2 = await srv.stats();
  assert.equal(s2.messages.published, s1.messages.published + 1);
  assert.equal(s2.messages.last_id, pub.id);
  assert.ok(s2.messages.delivered >= s1.messages.delivered + 5, `delivered ${s1.messages.delivered} -> ${s2.messages.delivered}`);
  await Promise.all(ws.map((c) => c.close()));
  sse.close();
});

test('/metrics is Prometheus text without user data, and needs no token; /healthz is 200', async () => {
  const secretUser = uid('secretuser');
  const c = await srv.wsHello({ user: secretUser, sid: 'secretsid', channels: 'secretchannel' });
  await srv.publish({ user: secretUser, data: 'secretdata' });
  await c.next('message');
  const r = await srv.get('/metrics');
  assert.equal(r.status, 200);
  assert.match(r.headers['content-type'], /^text\/plain/);
  const lines = r.text.split('\n').filter((l) => l !== '');
  assert.ok(lines.some((l) => l.startsWith('# TYPE ')), 'no # TYPE lines');
  let samples = 0;
  for (const l of lines) {
    if (l.startsWith('#')) {
      assert.match(l, /^# (HELP|TYPE) [a-zA-Z_:][a-zA-Z0-9_:]* /, l);
      continue;
    }
    assert.match(l, /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^}]*\})? [-+0-9.eEInfNa]+( \d+)?$/, `not a sample line: ${l}`);
    samples += 1;
  }
  assert.ok(samples >= 3, 'too few samples');
  for (const secret of [secretUser, 'secretsid', 'secretchannel', 'secretdata', srv.token]) {
    assert.ok(!r.text.includes(secret), `/metrics leaks ${secret}`);
  }
  const h = await srv.get('/healthz');
  assert.equal(h.status, 200);
  assert.match(h.text, /ok/);
  await c.close();
});

describe('admin token from RINGCAST_ADMIN_TOKEN', () => {
  let envSrv;
  before(async () => { envSrv = await startServer([], { tokenVia: 'env' }); });
  after(async () => { await envSrv?.stop(); });
  test('the environment token is accepted, others are not', async () => {
    assert.equal((await envSrv.admin('GET', '/admin/stats')).status, 200);
    assert.equal((await envSrv.admin('GET', '/admin/stats', { token: 'other' })).status, 401);
  });
});

describe('--max-connections 3', () => {
  let small;
  before(async () => { small = await startServer(['--max-connections', '3']); });
  after(async () => { await small?.stop(); });

  test('503 overloaded at the limit; accepted again once a connection closes', async () => {
    // An earlier request's connection (the start-up's /healthz, the stats request) may still hold
    // one of the three for a moment: a WebSocket refused then is tried again.
    await small.statsUntil((s) => s.connections.total === 1, 3000, 'no connection but this one');
    const cs = [];
    for (let i = 0; i < 3; i++) {
      cs.push(await waitFor(() => small.wsHello({ user: uid('mc') }).catch((e) => {
        if (e.status !== 503) throw e;
        return null;
      }), 3000, 'a WebSocket within the limit'));
    }
    const r = await small.wsRefused({ user: uid('mc4') });
    assertError(r, 503, 'overloaded', '4th connection');
    const p = await small.poll({ user: uid('mc5') });
    assertError(p, 503, 'overloaded', 'poll over the limit');
    // The live ones are not disturbed.
    await cs[0].sync();
    await cs[2].close();
    let again;
    const deadline = Date.now() + 3000;
    while (!again) {
      try {
        again = await small.wsHello({ user: uid('mc6') });
      } catch (e) {
        if (!e.status || Date.now() > deadline) throw e;
        await new Promise((res) => setTimeout(res, 50));
      }
    }
    assert.equal(again.hello.type, 'hello');
  });
});
