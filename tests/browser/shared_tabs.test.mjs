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
});
