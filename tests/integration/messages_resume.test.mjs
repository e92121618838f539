// docs/protocol.md, "Message ids and resume": ids, addressing, resume with since / Last-Event-ID, gap.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { assertIncreasing, startServer, uid } from './harness.mjs';

let srv;
before(async () => { srv = await startServer(['--history', '100']); });
after(async () => { await srv?.stop(); });

async function publishN(n, extra = {}) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(await srv.publish({ data: { i }, ...extra }));
  return out.map((r) => r.id);
}

test('ids are strictly increasing, also for concurrent publishes, and arrive in id order', async () => {
  const c = await srv.wsHello({ user: uid('ids') });
  const seq = await publishN(5);
  assertIncreasing(seq, 'publish reply ids');
  const conc = (await Promise.all(Array.from({ length: 20 }, (_, i) => srv.publish({ data: { c: i } })))).map((r) => r.id);
  assert.equal(new Set(conc).size, 20, 'concurrent publishes got distinct ids');
  assert.ok(Math.min(...conc) > seq[seq.length - 1]);
  const got = (await c.inbox.take(25, 'message')).map((m) => m.id);
  assertIncreasing(got, 'delivered ids');
  assert.deepEqual(got, [...seq, ...conc.sort((a, b) => a - b)]);
  const s = await srv.stats();
  assert.equal(s.messages.last_id, got[got.length - 1]);
  await c.close();
});

test('addressing: broadcast, channel, user; nobody gets what is not addressed to them', async () => {
  const alice = uid('alice');
  const bob = uid('bob');
  const news = uid('news');
  const sports = uid('sports');
  const a1 = await srv.wsHello({ user: alice, sid: '1', channels: news });
  const a2 = await srv.wsHello({ user: alice, sid: '2' });
  const b = await srv.wsHello({ user: bob, channels: [sports, news] });
  const p = await srv.sseHello({ user: uid('carol'), channels: sports });

  const n = await srv.publish({ channel: news, data: 'n' });
  assert.equal(n.recipients, 2, 'news goes to a1 and b');
  const s = await srv.publish({ channel: sports, data: 's' });
  assert.equal(s.recipients, 2, 'sports goes to b and the sse client');
  const u = await srv.publish({ user: alice, data: 'u' });
  assert.equal(u.recipients, 2, 'both sessions of alice');
  const nobody = await srv.publish({ channel: uid('empty'), data: 'x' });
  assert.equal(nobody.recipients, 0);
  const all = await srv.publish({ data: 'all' });
  assert.equal(all.recipients, 4);

  // The broadcast comes last: everything before it has been delivered when it arrives.
  const upTo = async (client) => {
    const out = [];
    for (;;) {
      const m = await client.next('message');
      out.push([m.id, m.channel, m.data]);
      if (m.id === all.id) return out;
    }
  };
  assert.deepEqual(await upTo(a1), [[n.id, news, 'n'], [u.id, `user:${alice}`, 'u'], [all.id, '*', 'all']]);
  assert.deepEqual(await upTo(a2), [[u.id, `user:${alice}`, 'u'], [all.id, '*', 'all']]);
  assert.deepEqual(await upTo(b), [[n.id, news, 'n'], [s.id, sports, 's'], [all.id, '*', 'all']]);
  const sseGot = [];
  for (;;) {
    const e = await p.next('message');
    sseGot.push([e.json.id, e.json.channel, e.json.data]);
    if (e.json.id === all.id) break;
  }
  assert.deepEqual(sseGot, [[s.id, sports, 's'], [all.id, '*', 'all']]);
  await Promise.all([a1.close(), a2.close(), b.close()]);
  p.close();
});

test('subscribe / unsubscribe over the WebSocket', async () => {
  const ch = uid('live');
  const c = await srv.wsHello({ user: uid('sub') });
  c.send({ type: 'subscribe', channels: [ch, `${ch}2`] });
  await c.sync();
  const m1 = await srv.publish({ channel: ch, data: 1 });
  assert.equal(m1.recipients, 1);
  assert.equal((await c.next('message')).id, m1.id);
  const m2 = await srv.publish({ channel: `${ch}2`, data: 2 });
  assert.equal((await c.next('message')).id, m2.id);

  c.send({ type: 'unsubscribe', channels: [ch] });
  await c.sync();
  const m3 = await srv.publish({ channel: ch, data: 3 });
  assert.equal(m3.recipients, 0);
  const m4 = await srv.publish({ data: 'marker' });
  const next = await c.next('message');
  assert.equal(next.id, m4.id, `got ${JSON.stringify(next)} after unsubscribing`);
  await c.close();
});

test('no message twice on one connection: duplicate subscriptions, channel + user addressing', async () => {
  const user = uid('once');
  const ch = uid('dup');
  const c = await srv.wsHello({ user, channels: [ch, ch] });
  c.send({ type: 'subscribe', channels: [ch, ch] });
  await c.sync();
  const a = await srv.publish({ channel: ch, data: 1 });
  assert.equal(a.recipients, 1);
  const b = await srv.publish({ user, data: 2 });
  const end = await srv.publish({ data: 'end' });
  const got = [];
  while (got[got.length - 1] !== end.id) got.push((await c.next('message')).id);
  assert.deepEqual(got, [a.id, b.id, end.id]);
  await c.close();
});

describe('resume with since / Last-Event-ID', () => {
  // A session sees ids m[0..2], disconnects, misses m[3..5] (+ one message not addressed to it).
  async function scenario(prefix) {
    const user = uid(prefix);
    const seen = await publishN(3);
    const missed = await publishN(2);
    await srv.publish({ channel: uid('other'), data: 'not for us' });
    missed.push(...(await publishN(1)));
    return { user, since: seen[2], missed };
  }

  test('ws: since delivers exactly the missed messages, in order, after hello', async () => {
    const { user, since, missed } = await scenario('rws');
    const c = await srv.wsHello({ user, since });
    assert.equal(c.hello.gap, false);
    assert.equal(c.hello.resumed, false, 'resumed means "the session existed", not "since was given"');
    assert.equal(c.hello.type, c.messages[0].type, 'hello comes first');
    const got = await c.inbox.take(3, 'message');
    assert.deepEqual(got.map((m) => m.id), missed);
    await srv.expectNoMoreMessages(c, user, 'nothing replayed twice');
    const live = await srv.publish({ data: 'live' });
    assert.equal((await c.next('message')).id, live.id);
    await c.close();
  });

  test('poll: since is answered at once with the missed messages', async () => {
    const { user, since, missed } = await scenario('rpoll');
    const r = await srv.poll({ user, since });
    assert.equal(r.status, 200);
    assert.equal(r.json.type, 'messages');
    assert.deepEqual(r.json.messages.map((m) => m.id), missed);
    assert.equal(r.json.last_id, missed[missed.length - 1]);
    assert.equal(r.json.gap, false);
    assert.ok(r.elapsed < 1000, `not answered at once (${r.elapsed} ms)`);
  });

  test('sse: Last-Event-ID delivers the missed messages; so does since', async () => {
    const { user, since, missed } = await scenario('rsse');
    const a = await srv.sseHello({ user }, { 'Last-Event-ID': String(since) });
    const got = [];
    for (let i = 0; i < 3; i++) got.push(await a.next('message'));
    assert.deepEqual(got.map((e) => e.json.id), missed);
    assert.deepEqual(got.map((e) => e.id), missed.map(String), 'id: lines carry the message ids');
    await srv.expectNoMoreMessages(a, user, 'nothing replayed twice');
    a.close();

    const b = await srv.sseHello({ user: uid('rsse2'), since });
    const got2 = [];
    for (let i = 0; i < 3; i++) got2.push((await b.next('message')).json.id);
    assert.deepEqual(got2, missed);
    b.close();
  });

  test('no since: starts from now (nothing retained is replayed)', async () => {
    await publishN(2);
    const user = uid('now');
    const c = await srv.wsHello({ user });
    await srv.expectNoMoreMessages(c, user, 'nothing retained replayed');
    const held0 = (await srv.stats()).connections.poll;
    const r = srv.poll({ user: uid('nowp') });
    await srv.statsUntil((st) => st.connections.poll > held0, 3000, 'poll held');
    const live = await srv.publish({ data: 'after' });
    const reply = await r;
    assert.deepEqual(reply.json.messages.map((m) => m.id), [live.id]);
    assert.equal((await c.next('message')).id, live.id);
    await c.close();
  });

  test('hello.last_id is the newest id (before any message arrives), since=last_id replays nothing', async () => {
    const ids = await publishN(2);
    const c = await srv.wsHello({ user: uid('lid') });
    assert.equal(c.hello.last_id, ids[1]);
    await c.close();
    const user = uid('lid2');
    const d = await srv.wsHello({ user, since: ids[1] });
    assert.equal(d.hello.gap, false);
    await srv.expectNoMoreMessages(d, user, 'since=last_id replays nothing');
    await d.close();
  });

  test('a resume racing with live publishes: every id exactly once, in order', async () => {
    const user = uid('race');
    const [start] = await publishN(1);
    const pubs = [];
    let stop = false;
    const pump = (async () => {
      while (!stop && pubs.length < 60) pubs.push((await srv.publish({ data: pubs.length })).id);
    })();
    while (pubs.length < 10) await new Promise((r) => setTimeout(r, 5));
    const c = await srv.wsHello({ user, since: start });
    while (pubs.length < 30) await new Promise((r) => setTimeout(r, 5));
    stop = true;
    await pump;
    const last = pubs[pubs.length - 1];
    const got = [];
    while (got[got.length - 1] !== last) got.push((await c.next('message', 5000)).id);
    assert.deepEqual(got, pubs, 'each message once, none skipped, in order');
    await c.close();
  });
});

describe('gap when since is older than the retained history', () => {
  let small;
  before(async () => { small = await startServer(['--history', '5']); });
  after(async () => { await small?.stop(); });

  test('ws / sse hello and poll reply say gap: true and carry what is retained', async () => {
    const ids = [];
    for (let i = 0; i < 10; i++) ids.push((await small.publish({ data: i })).id);
    const retained = ids.slice(5);

    const wUser = uid('gw');
    const w = await small.wsHello({ user: wUser, since: ids[0] });
    assert.equal(w.hello.gap, true);
    assert.deepEqual((await w.inbox.take(5, 'message')).map((m) => m.id), retained);

    const p = await small.poll({ user: uid('gp'), since: ids[0] });
    assert.equal(p.json.type, 'messages');
    assert.equal(p.json.gap, true);
    assert.deepEqual(p.json.messages.map((m) => m.id), retained);
    assert.equal(p.json.last_id, ids[9]);

    const s = await small.sseHello({ user: uid('gs') }, { 'Last-Event-ID': String(ids[0]) });
    assert.equal(s.hello.gap, true);
    const got = [];
    for (let i = 0; i < 5; i++) got.push((await s.next('message')).json.id);
    assert.deepEqual(got, retained);
    s.close();
    // Last: the marker goes into the history of 5 that the checks above read.
    await small.expectNoMoreMessages(w, wUser, 'only the retained messages');
    await w.close();
  });

  test('since = just before the oldest retained message is not a gap', async () => {
    const ids = [];
    for (let i = 0; i < 7; i++) ids.push((await small.publish({ data: i })).id);
    // retained: ids[2..6]; since = ids[1] misses nothing.
    const w = await small.wsHello({ user: uid('ng'), since: ids[1] });
    assert.equal(w.hello.gap, false);
    assert.deepEqual((await w.inbox.take(5, 'message')).map((m) => m.id), ids.slice(2));
    const p = await small.poll({ user: uid('ngp'), since: ids[1] });
    assert.equal(p.json.gap, false);
    assert.deepEqual(p.json.messages.map((m) => m.id), ids.slice(2));
    await w.close();
  });
});
