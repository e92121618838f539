// ringcast.js in Chromium against the scripted stand-in server (fake_server.mjs): fallback,
// resume, de-duplication, retry_ms, and what the client does after each kind of close.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, test } from 'node:test';
import { startFakeServer } from './fake_server.mjs';
import { launchBrowser, uniqueUser } from './support.mjs';

describe('ringcast.js client library', () => {
  let fake;
  let browser;
  let page;
  let user;

  before(async () => {
    fake = await startFakeServer();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await fake?.stop();
  });
  beforeEach(async () => {
    fake.refused.clear();
    fake.answerPings = true;
    user = uniqueUser('client');
    await page?.close();
    page = await browser.context.newPage();
    await page.goto(`${fake.url}/blank`);
    await page.addScriptTag({ url: '/ringcast.js' });
  });

  // Starts a client in the page; every event it emits is recorded in window.events.
  const start = (options) =>
    page.evaluate((o) => {
      window.events = [];
      window.client = new RingcastClient({ backoffMinMs: 100, ...o });
      for (const type of ['status', 'message', 'gap', 'error']) {
        window.client.on(type, (detail) => window.events.push({ type, at: Date.now(), ...detail }));
      }
      window.client.connect();
    }, options);
  const events = (type) => page.evaluate((t) => window.events.filter((e) => e.type === t), type);
  const waitUntil = (fn, arg) => page.waitForFunction(fn, arg, { timeout: 10000 });
  const waitForState = (state, transport) =>
    waitUntil(([s, t]) => window.client.state === s && (!t || window.client.transport === t), [state, transport]);
  const waitForIds = (n) => waitUntil((k) => window.events.filter((e) => e.type === 'message').length >= k, n);
  const until = async (predicate) => {
    for (let i = 0; i < 100 && !predicate(); i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(predicate(), 'condition not reached in 5 s');
  };
  const connectsOf = () => fake.connects.filter((c) => c.params.user === user);

  test('uses WebSocket when it is available', async () => {
    await start({ user });
    await waitForState('open', 'ws');
  });

  test('falls back to SSE, then long-poll, when the previous transport is refused', async () => {
    fake.refused.add('ws');
    await start({ user });
    await waitForState('open', 'sse');
    await page.evaluate(() => window.client.close());

    fake.refused.add('sse');
    await start({ user });
    await waitForState('open', 'poll');
    const { id } = fake.publish({ user, data: { title: 'via poll' } });
    await waitForIds(1);
    assert.deepEqual((await events('message')).map((m) => m.id), [id]);
  });

  for (const transport of ['ws', 'sse', 'poll']) {
    test(`${transport}: resumes with since after a dropped connection, losing and repeating nothing`, async () => {
      await start({ user, transport });
      await waitForState('open', transport);
      const first = fake.publish({ user, data: 1 }).id;
      await waitForIds(1);

      // A long-poll client polls again after each reply: cut the new held poll, not the gap.
      await until(() => [...fake.sessions.values()].some((x) => x.user === user && x.conn));
      fake.dropAll();
      const missed = fake.publish({ user, data: 2 }).id; // published while the client is away
      await waitForIds(2);
      const last = fake.publish({ user, data: 3 }).id;
      await waitForIds(3);

      assert.deepEqual((await events('message')).map((m) => m.id), [first, missed, last]);
      const resumedFrom = connectsOf().slice(1).map((c) => c.params.since);
      assert.ok(resumedFrom.includes(String(first)), `reconnects carried since=${resumedFrom}`);
      // Chromium silently re-sends a GET whose reused keep-alive socket closed before any reply,
      // so a cut long-poll may never reach the client as a failure; the ids above are what count.
      if (transport !== 'poll') {
        const states = (await events('status')).map((s) => s.state);
        assert.ok(states.includes('reconnecting'), `states: ${states}`);
      }
    });
  }

  test('rewind: sent on the first connect only; later connects resume with since', async () => {
    await start({ user, transport: 'ws', rewind: '30s' });
    await waitForState('open', 'ws');
    fake.dropAll();
    await until(() => connectsOf().length >= 2);
    const [first, second] = connectsOf();
    assert.equal(first.params.rewind, '30s');
    assert.equal(first.params.since, undefined);
    assert.equal(second.params.rewind, undefined);
    assert.notEqual(second.params.since, undefined);
  });

  test('drops a message it has already seen', async () => {
    await start({ user, transport: 'ws' });
    await waitForState('open', 'ws');
    const message = fake.publish({ user, data: 'once' });
    await waitForIds(1);
    const replay = fake.history.find((m) => m.id === message.id);
    fake.sendRaw(user, replay, { end: false });
    const marker = fake.publish({ user, data: 'marker' }).id;
    await waitForIds(2);
    assert.deepEqual((await events('message')).map((m) => m.id), [message.id, marker]);
  });

  test('waits retry_ms from a reconnect message before coming back', async () => {
    await start({ user, transport: 'ws' });
    await waitForState('open', 'ws');
    const sentAt = Date.now();
    fake.sendRaw(user, { type: 'reconnect', reason: 'rebalance', retry_ms: 1500, last_id: fake.lastId });
    await waitUntil(() => window.events.filter((e) => e.state === 'open').length >= 2);
    const reconnecting = (await events('status')).find((s) => s.state === 'reconnecting');
    assert.equal(reconnecting.reason, 'rebalance');
    assert.equal(reconnecting.retryInMs, 1500);
    const reopened = (await events('status')).filter((s) => s.state === 'open')[1];
    assert.ok(reopened.at - sentAt >= 1400, `came back after ${reopened.at - sentAt} ms`);
  });

  for (const reason of ['kicked', 'replaced']) {
    test(`stops for good after close/${reason}`, async () => {
      await start({ user, transport: 'sse' });
      await waitForState('open', 'sse');
      fake.sendRaw(user, { type: 'close', reason });
      await waitForState('closed');
      const closed = (await events('status')).at(-1);
      assert.deepEqual([closed.state, closed.reason], ['closed', reason]);
      const before = connectsOf().length;
      await page.waitForTimeout(1000);
      assert.equal(connectsOf().length, before, 'no reconnect after a final close');
    });
  }

  for (const reason of ['idle', 'expired']) {
    test(`reconnects after close/${reason}`, async () => {
      await start({ user, transport: 'ws' });
      await waitForState('open', 'ws');
      fake.sendRaw(user, { type: 'close', reason });
      await waitUntil(() => window.events.filter((e) => e.state === 'open').length >= 2);
      assert.equal(connectsOf().length, 2);
    });
  }

  test('reports a gap in hello', async () => {
    await start({ user, transport: 'ws' });
    await waitForState('open', 'ws');
    fake.sendRaw(user, { type: 'hello', last_id: fake.lastId, gap: true }, { end: false });
    await waitUntil(() => window.events.some((e) => e.type === 'gap'));
  });

  test('ws: subscribes at runtime with a subscribe message on the same socket', async () => {
    await start({ user, transport: 'ws' });
    await waitForState('open', 'ws');
    await page.evaluate(() => window.client.subscribe('gree'));
    // The stand-in has read the subscribe message on the same socket.
    await until(() => [...fake.sessions.values()].some((s) => s.user === user && s.channels.has('gree')));
    const { id } = fake.publish({ channel: 'gree', data: 'cool' });
    await waitForIds(1);
    assert.equal((await events('message'))[0].id, id);
    assert.equal(connectsOf().length, 1, 'no reconnect was needed');
  });

  for (const transport of ['sse', 'poll']) {
    test(`${transport}: subscribes and unsubscribes at runtime by reconnecting with channels=`, async () => {
      await start({ user, transport, channels: ['haier'] });
      await waitForState('open', transport);
      await page.evaluate(() => window.client.subscribe('gree'));
      await waitUntil(() => window.events.filter((e) => e.state === 'open').length >= 2);
      assert.equal(connectsOf().at(-1).params.channels, 'haier,gree');

      await page.evaluate(() => window.client.unsubscribe('haier'));
      await waitUntil(() => window.events.filter((e) => e.state === 'open').length >= 3);
      assert.equal(connectsOf().at(-1).params.channels, 'gree');
      const { id } = fake.publish({ channel: 'gree', data: 'cool' });
      await waitForIds(1);
      assert.equal((await events('message'))[0].id, id);
    });
  }

  test('ws: pings the server, and reconnects when a ping goes unanswered', async () => {
    await start({ user, transport: 'ws', pingIntervalMs: 200, pongTimeoutMs: 300 });
    await waitForState('open', 'ws');
    const before = fake.pings;
    await page.waitForTimeout(700);
    assert.ok(fake.pings - before >= 2, `${fake.pings - before} pings in 700 ms`);
    assert.equal(connectsOf().length, 1, 'answered pings keep the socket');

    fake.answerPings = false;
    await waitUntil(() => window.events.some((e) => e.reason === 'ping_timeout'));
  });

  test('rejects an invalid user or channel name up front', async () => {
    const refusal = (options) => page.evaluate((o) => {
      try {
        new RingcastClient(o);
        return null;
      } catch (err) {
        return err.message;
      }
    }, options);
    assert.match(await refusal({ user: 'no spaces' }), /invalid user/);
    assert.match(await refusal({ user, channels: ['ok', 'not ok!'] }), /invalid channel/);
    // And at runtime: subscribe() refuses a bad name before sending anything.
    await start({ user, transport: 'ws' });
    await waitForState('open', 'ws');
    const runtime = await page.evaluate(() => {
      try {
        window.client.subscribe('bad name');
        return null;
      } catch (err) {
        return err.message;
      }
    });
    assert.match(runtime, /invalid channel/);
    assert.equal(await refusal({ user }), null, 'a valid user is accepted');
  });
});
