// Presence (docs/protocol.md, "Presence"): GET /admin/presence?channel= / ?user= / ?top=, counted
// as sessions come and go; summed over three nodes through a real redis-server, a killed node
// dropping out within one session TTL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { startServer, uid, waitFor, sleep, freePort, requireCommand } from './harness.mjs';

async function presence(srv, query) {
  const r = await srv.admin('GET', `/admin/presence?${query}`);
  assert.equal(r.status, 200, `presence ${query} -> ${r.status} ${r.text}`);
  return r.json;
}

test('one node counts users and sessions per channel and per user as they come and go', async () => {
  const srv = await startServer(['--threads', '2']);
  try {
    const news = uid('news'), sport = uid('sport');
    const alice = uid('alice'), bob = uid('bob'), carol = uid('carol');
    const a1 = await srv.wsHello({ user: alice, sid: '1', channels: news });
    const a2 = await srv.sseHello({ user: alice, sid: '2', channels: news });
    const b1 = await srv.wsHello({ user: bob, sid: '1', channels: `${news},${sport}` });
    assert.deepEqual(await presence(srv, `channel=${news}`), { channel: news, users: 2, sessions: 3 });
    assert.deepEqual(await presence(srv, `channel=${sport}`), { channel: sport, users: 1, sessions: 1 });
    assert.deepEqual(await presence(srv, `user=${alice}`), { user: alice, online: true, sessions: 2 });
    assert.deepEqual(await presence(srv, `user=${carol}`), { user: carol, online: false, sessions: 0 });

    a1.send({ type: 'subscribe', channels: [sport] });
    b1.send({ type: 'unsubscribe', channels: [news] });
    await waitFor(async () => (await presence(srv, `channel=${sport}`)).sessions === 2, 3000, 'subscribe counted');
    assert.deepEqual(await presence(srv, `channel=${news}`), { channel: news, users: 1, sessions: 2 });
    assert.deepEqual((await presence(srv, 'top=2')).channels, [
      { channel: news, users: 1, sessions: 2 }, { channel: sport, users: 2, sessions: 2 }]
      .sort((x, y) => y.sessions - x.sessions || (x.channel < y.channel ? -1 : 1)));

    // A long-poll session counts between two polls; closed streams stop counting at once.
    const poll = await srv.poll({ user: carol, sid: 'p', channels: news }, { timeoutMs: 200 }).catch(() => null);
    void poll;
    await waitFor(async () => (await presence(srv, `user=${carol}`)).online, 3000, 'poll session online');
    await a1.close();
    a2.close();
    await waitFor(async () => !(await presence(srv, `user=${alice}`)).online, 3000, 'alice offline');
    assert.deepEqual(await presence(srv, `channel=${news}`), { channel: news, users: 1, sessions: 1 });
    assert.deepEqual(await presence(srv, `user=${carol}`), { user: carol, online: true, sessions: 1 });
  } finally {
    await srv.stop();
  }
});

test('bad presence queries get 400, no token 401, a wrong method 405', async () => {
  const srv = await startServer();
  try {
    for (const q of ['', 'channel=a&user=b', 'channel=', 'channel=a%20b', 'top=0', 'top=101', 'top=x', 'zone=a']) {
      const r = await srv.admin('GET', `/admin/presence?${q}`);
      assert.equal(r.status, 400, `?${q}: ${r.status} ${r.text}`);
      assert.equal(r.json.error, 'bad_request');
      assert.equal(typeof r.json.message, 'string');
    }
    assert.equal((await srv.admin('GET', '/admin/presence?user=a', { token: null })).status, 401);
    const post = await srv.admin('POST', '/admin/presence?user=a', { body: {} });
    assert.equal(post.status, 405);
    assert.equal(post.headers.allow, 'GET');
  } finally {
    await srv.stop();
  }
});

const REDIS = requireCommand('redis-server');

test('three nodes with redis sum their presence; a killed node stops counting within one session TTL', async () => {
  const port = await freePort();
  const redis = spawn(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' });
  const redisExited = new Promise((r) => redis.on('exit', r));
  const nodes = [];
  try {
    await waitFor(() => new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    }), 5000, 'redis-server listening');
    const ttlMs = 2000;
    for (let i = 0; i < 3; ++i) {
      nodes.push(await startServer(['--redis', `redis://127.0.0.1:${port}/0`, '--threads', '2', '--session-ttl', '2s']));
    }
    const [a, b, c] = nodes;
    const room = uid('room'), dana = uid('dana'), eli = uid('eli'), fay = uid('fay');
    await a.wsHello({ user: dana, sid: '1', channels: room });
    await b.wsHello({ user: dana, sid: '2', channels: room });
    await b.sseHello({ user: eli, sid: '1', channels: room });
    await c.wsHello({ user: fay, sid: '1', channels: room });
    await c.wsHello({ user: dana, sid: '3', channels: room });
    for (const n of nodes) {
      await waitFor(async () => (await presence(n, `channel=${room}`)).sessions === 5, 3000, 'five sessions everywhere');
      assert.deepEqual(await presence(n, `channel=${room}`), { channel: room, users: 3, sessions: 5 });
      assert.deepEqual(await presence(n, `user=${dana}`), { user: dana, online: true, sessions: 3 });
    }
    const top = (await presence(a, 'top=5')).channels.find((x) => x.channel === room);
    assert.deepEqual(top, { channel: room, users: 3, sessions: 5 });

    // Node c dies without a word: its two sessions stop counting within one session TTL.
    const killedAt = Date.now();
    c.proc.kill('SIGKILL');
    await c.exited;
    c.stopped = true;
    c.closeClients();
    await waitFor(async () => (await presence(a, `channel=${room}`)).sessions === 3, ttlMs + 1500, 'c no longer counted');
    const goneMs = Date.now() - killedAt;
    console.log(`a killed node stopped counting after ${goneMs} ms (session TTL ${ttlMs} ms)`);
    assert.ok(goneMs <= ttlMs + 500, `${goneMs} ms`);
    assert.deepEqual(await presence(b, `channel=${room}`), { channel: room, users: 2, sessions: 3 });
    assert.deepEqual(await presence(b, `user=${fay}`), { user: fay, online: false, sessions: 0 });
    assert.deepEqual(await presence(b, `user=${dana}`), { user: dana, online: true, sessions: 2 });
  } finally {
    for (const n of nodes) if (!n.stopped) await n.stop();
    redis.kill('SIGTERM');
    await redisExited;
  }
});

// The first heartbeat of a node comes a third of --session-ttl after start (40 s by default); the
// node's counts must not wait for it, at start-up nor after Redis restarted empty.
test('with redis, presence is right at once after start-up and after Redis restarted, not a heartbeat later', async () => {
  const port = await freePort();
  const startRedis = async () => {
    const proc = spawn(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: 'ignore' });
    const exited = new Promise((r) => proc.on('exit', r));
    await waitFor(() => new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    }), 5000, 'redis-server listening');
    return { proc, exited };
  };
  let redis = await startRedis();
  let node;
  try {
    node = await startServer(['--redis', `redis://127.0.0.1:${port}/0`, '--session-ttl', '2m']);
    const room = uid('room');
    await node.wsHello({ user: uid('gil'), channels: room });
    await node.sseHello({ user: uid('hal'), channels: room });
    await waitFor(async () => (await presence(node, `channel=${room}`)).sessions === 2, 2000, 'two sessions within 2 s of start');
    assert.deepEqual(await presence(node, `channel=${room}`), { channel: room, users: 2, sessions: 2 });
    assert.deepEqual((await presence(node, 'top=1')).channels, [{ channel: room, users: 2, sessions: 2 }]);

    // Redis restarts without its data: the node writes its counts again once it is back.
    redis.proc.kill('SIGKILL');
    await redis.exited;
    redis = await startRedis();
    await waitFor(async () => (await node.get('/healthz')).status === 200, 8000, 'the node reconnected');
    await waitFor(async () => {
      const r = await node.admin('GET', `/admin/presence?channel=${room}`);
      return r.status === 200 && r.json.sessions === 2;
    }, 2000, 'two sessions within 2 s of reconnecting');
  } finally {
    await node?.stop();
    redis.proc.kill('SIGTERM');
    await redis.exited;
  }
});
