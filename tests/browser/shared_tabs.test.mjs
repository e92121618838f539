// One connection per browser (docs/client.md, "One connection per browser"): the storefront's tabs
// of one user share one connection and one session, every tab shows each promotion once, and when
// the leader tab closes another takes over from the last id, losing and repeating nothing.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { fakeSkip, launchBrowser, openStore, startServer, uniqueUser } from './support.mjs';

const TABS = 8;
const TAKEOVER_MS = 2000;

const shown = (page) =>
  page.$$eval('#promotions li', (items) => items.map((li) => Number(li.dataset.id)).reverse());
const hasLiveSocket = (page) => page.sockets.some((ws) => !ws.isClosed());

describe('tabs of one browser share one connection', { skip: fakeSkip('counts the real server\'s connections') }, () => {
  let server;

  before(async () => { server = await startServer(); });
  after(async () => { await server?.stop(); });

  // Client connections the server holds (WebSocket, SSE, held polls), not the pages' HTTP ones.
  const clientConnections = async () => {
    const { connections } = await server.stats();
    return connections.ws + connections.sse + connections.poll;
  };
  // Samples the count until stopped: the most seen at once.
  const watchConnections = () => {
    let most = 0;
    let watching = true;
    const done = (async () => {
      while (watching) {
        most = Math.max(most, await clientConnections());
        await sleep(20);
      }
    })();
    return async () => {
      watching = false;
      await done;
      return most;
    };
  };
  const until = async (what, predicate, ms) => {
    const deadline = Date.now() + ms;
    while (!(await predicate())) {
      if (Date.now() > deadline) throw new Error(`${what}: not within ${ms} ms`);
      await sleep(20);
    }
  };
  const publish = async (user, title) => (await server.publish({ user, data: { title } })).id;
  const expectShown = async (pages, ids) => {
    for (const page of pages) {
      await until('every promotion shown', async () => (await shown(page)).length >= ids.length, 10000);
    }
    await sleep(300); // a repeat would come now
    for (const [i, page] of pages.entries()) assert.deepEqual(await shown(page), ids, `tab ${i}`);
  };

  const runTabs = async ({ tabs, withoutWebLocks }) => {
    const browser = await launchBrowser();
    const stopWatching = watchConnections();
    try {
      if (withoutWebLocks) {
        await browser.context.addInitScript(() => { delete Navigator.prototype.locks; });
      }
      const user = uniqueUser('tabs');
      const pages = [];
      // Each storefront tab has its own sid (sessionStorage); openStore waits until it is open.
      for (let i = 0; i < tabs; i++) pages.push(await openStore(browser.context, server.url, { user }));
      if (withoutWebLocks) assert.equal(await pages[0].evaluate(() => navigator.locks), undefined);
      await until('one client connection', async () => (await clientConnections()) === 1, 3000);
      const presence = await server.get(`/admin/presence?user=${user}`);
      assert.equal(presence.sessions, 1, 'one session for every tab');
      const sids = await Promise.all(pages.map((p) => p.evaluate(() => sessionStorage.getItem('ringcast.sid'))));
      assert.equal(new Set(sids).size, tabs, 'each tab has a sid of its own');

      const ids = [];
      for (let n = 0; n < 3; n++) ids.push(await publish(user, `before ${n}`));
      await expectShown(pages, ids);

      const leaders = pages.filter(hasLiveSocket);
      assert.equal(leaders.length, 1, 'one tab holds the WebSocket');
      const rest = pages.filter((p) => p !== leaders[0]);
      const closed = Date.now();
      await leaders[0].close();
      ids.push(await publish(user, 'while the leader goes')); // the next leader's resume brings it
      await until('another tab takes over', async () => rest.some(hasLiveSocket) &&
        (await clientConnections()) === 1 &&
        (await Promise.all(rest.map((p) => p.getAttribute('#status', 'data-state')))).every((s) => s === 'open'),
      TAKEOVER_MS);
      const takeoverMs = Date.now() - closed;
      for (let n = 0; n < 3; n++) ids.push(await publish(user, `after ${n}`));
      await expectShown(rest, ids);
      assert.equal(rest.filter(hasLiveSocket).length, 1, 'one tab holds the WebSocket');
      // Every tab acks what it shows; acks are cumulative (the client sends the newest, at most every
      // 100 ms), and the group's one session counts the newest acked once, none twice.
      const acked = async (id) => (await server.get(`/admin/messages/${id}`)).acked;
      await until('the newest message acked', async () => (await acked(ids.at(-1))) === 1, 3000);
      await sleep(300);
      for (const id of ids) assert.ok((await acked(id)) <= 1, `message ${id} acked more than once`);
      assert.equal(await acked(ids.at(-1)), 1);
      assert.ok(await stopWatching() <= 2, 'the server never counted more than two connections');
      return takeoverMs;
    } finally {
      await stopWatching();
      await browser.close();
    }
  };

  test(`${TABS} tabs: the server counts one connection; closing the leader, another takes over within ${TAKEOVER_MS} ms, nothing lost or repeated`, async () => {
    const takeoverMs = await runTabs({ tabs: TABS });
    console.log(`takeover: ${takeoverMs} ms`);
  });

  test('without Web Locks (the BroadcastChannel fallback) the tabs share as well', async () => {
    const takeoverMs = await runTabs({ tabs: 4, withoutWebLocks: true });
    console.log(`takeover without Web Locks: ${takeoverMs} ms`);
  });

  test('tabs of another user, or with share: false, hold their own; channels past 32 in a group are an error', async () => {
    const browser = await launchBrowser();
    try {
      const [alice, bob] = [uniqueUser('alice'), uniqueUser('bob')];
      const range = (from, to) => Array.from({ length: to - from }, (_, i) => `c${from + i}`);
      const open = async (options) => {
        const page = await browser.context.newPage();
        await page.goto(`${server.url}/healthz`); // a page of the server's origin
        await page.addScriptTag({ url: '/ringcast.js' });
        await page.evaluate((o) => {
          window.got = [];
          window.errors = [];
          window.client = new RingcastClient(o);
          window.client.on('message', (m) => window.got.push(m.data.n));
          window.client.on('error', (e) => window.errors.push(e));
          window.client.connect();
        }, options);
        await page.waitForFunction(() => window.client.state === 'open', null, { timeout: 10000 });
        return page;
      };
      const first = await open({ user: alice, channels: range(0, 20) });
      const second = await open({ user: alice, channels: range(20, 40) });
      const other = await open({ user: bob, channels: range(0, 20) });
      const alone = await open({ user: alice, sid: 'alone', share: false, channels: ['c5'] });
      await until('three client connections', async () => (await clientConnections()) === 3, 3000);
      assert.deepEqual(await Promise.all([first, second, other, alone].map((p) => p.evaluate(() => window.client.shared))),
        [true, true, true, false]);

      // The group of alice's two tabs holds c0..c31: the second tab's c32..c39 are left out, and it
      // says so.
      const errors = await second.evaluate(() => window.errors);
      assert.equal(errors.length, 1, JSON.stringify(errors));
      assert.equal(errors[0].code, 'too_many_channels');
      assert.match(errors[0].message, /c32, c33, c34, c35, c36, c37, c38, c39/);
      assert.deepEqual(await first.evaluate(() => window.errors), []);

      for (const [channel, n] of [['c5', 1], ['c25', 2], ['c35', 3]]) {
        await server.publish({ channel, data: { n } });
      }
      await until('the messages', async () => (await second.evaluate(() => window.got.length)) >= 1 &&
        (await alone.evaluate(() => window.got.length)) >= 1, 5000);
      await sleep(300);
      assert.deepEqual(await first.evaluate(() => window.got), [1]);
      assert.deepEqual(await second.evaluate(() => window.got), [2]);
      assert.deepEqual(await other.evaluate(() => window.got), [1]);
      assert.deepEqual(await alone.evaluate(() => window.got), [1]);
    } finally {
      await browser.close();
    }
  });

  test('a tab that opens later gets the promotions in force from the group, not from a connection of its own', async () => {
    const browser = await launchBrowser();
    try {
      const user = uniqueUser('late');
      const first = await openStore(browser.context, server.url, { user });
      const { id: sticky } = await server.publish({ user, sticky: true, ttl: '1h', data: { title: 'in force' } });
      const { id: plain } = await server.publish({ user, data: { title: 'said once' } });
      await until('shown', async () => (await shown(first)).length === 2, 5000);
      const later = await openStore(browser.context, server.url, { user });
      await until('the promotion in force', async () => (await shown(later)).includes(sticky), 5000);
      await sleep(300);
      // As a connect without `since` would: the promotion in force, not the message that was said
      // once before the tab opened.
      assert.deepEqual(await shown(later), [sticky]);
      assert.deepEqual(await shown(first), [sticky, plain]);
      assert.equal(await clientConnections(), 1);
    } finally {
      await browser.close();
    }
  });

  test('a kick closes every tab of the group; a tab opened afterwards connects it again', async () => {
    const browser = await launchBrowser();
    try {
      const user = uniqueUser('kicked');
      const tabs = [];
      for (let i = 0; i < 3; i++) tabs.push(await openStore(browser.context, server.url, { user }));
      await server.kick(user);
      for (const tab of tabs) await tab.locator('#status[data-state="closed"]').waitFor({ timeout: 5000 });
      assert.deepEqual(await Promise.all(tabs.map((t) => t.textContent('#status'))),
        ['closed (kicked)', 'closed (kicked)', 'closed (kicked)']);
      await until('no client connection', async () => (await clientConnections()) === 0, 3000);
      const later = await openStore(browser.context, server.url, { user }); // waits until open
      await until('one client connection', async () => (await clientConnections()) === 1, 3000);
      const id = await publish(user, 'after the kick');
      await until('shown', async () => (await shown(later)).includes(id), 5000);
    } finally {
      await browser.close();
    }
  });
});
