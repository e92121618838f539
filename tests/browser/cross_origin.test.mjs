// A storefront on its own origin with ringcast on another (issue 36; docs/security.md, "A page on
// another domain", docs/client.md, "A server on another origin"): the shop's page on one loopback
// port loads ringcast.js from the server on another and connects with each transport forced in
// turn, `withCredentials: true`, through a connect hook that admits by the shop's cookie. Chromium
// enforces CORS: SSE and long-poll work only when the server's replies grant the page's origin with
// credentials. A page of an origin --allowed-origins does not list gets nothing, and the server
// says which flag would admit it.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { fakeSkip, launchBrowser, startServer, uniqueUser } from './support.mjs';

// The shop: an empty page on its own port; `/?shopper=NAME` signs NAME in with a cookie. Cookies
// belong to a host, not a port, so the ringcast server on 127.0.0.1 gets it too (same site, as
// www.shop.example and push.shop.example are).
async function startShop() {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://shop');
    const headers = { 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-store' };
    const shopper = url.searchParams.get('shopper');
    if (shopper) headers['Set-Cookie'] = `shopper=${shopper}; Path=/; SameSite=Lax`;
    res.writeHead(url.pathname === '/' ? 200 : 404, headers);
    res.end('<!doctype html><title>shop</title><p>shop</p>');
  });
  await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => { server.closeAllConnections(); server.close(); },
  };
}

// The shop's backend as ringcast's connect hook: admits the connect as the user its cookie names,
// refuses one without the cookie.
async function startHook() {
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const asked = JSON.parse(Buffer.concat(chunks).toString());
      const shopper = /(?:^|;\s*)shopper=([^;]+)/u.exec(asked.headers?.cookie ?? '')?.[1];
      res.writeHead(shopper ? 200 : 403, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(shopper ? { user: shopper } : { why: 'no cookie' }));
    });
  });
  await new Promise((resolve) => { server.listen(0, '127.0.0.1', resolve); });
  return {
    url: `http://127.0.0.1:${server.address().port}/connect`,
    close: () => { server.closeAllConnections(); server.close(); },
  };
}

const waitUntil = async (what, check, ms = 10000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => { setTimeout(r, 50); });
  }
};

describe('a page on another origin', { skip: fakeSkip('CORS and the connect hook are the real server\'s') }, () => {
  let shop;
  let stranger; // a page whose origin is not listed
  let hook;
  let server;
  let browser;

  before(async () => {
    [shop, stranger, hook] = await Promise.all([startShop(), startShop(), startHook()]);
    server = await startServer(['--allowed-origins', shop.origin, '--connect-hook', hook.url]);
    browser = await launchBrowser();
  });

  after(async () => {
    await browser?.close();
    await server?.stop();
    shop?.close();
    stranger?.close();
    hook?.close();
  });

  // The shop's page as `shopper`, with ringcast.js from the server and a client asking to be
  // `guest` (the hook makes it the cookie's user); its messages and statuses are recorded.
  async function openShopPage(origin, shopper, options) {
    const page = await browser.context.newPage();
    await page.goto(`${origin}/?shopper=${shopper}`);
    await page.addScriptTag({ url: `${server.url}/ringcast.js` });
    await page.evaluate((o) => {
      window.got = [];
      window.statuses = [];
      window.client = new window.RingcastClient({ user: 'guest', ...o });
      window.client.on('message', (m) => window.got.push(m.data));
      window.client.on('status', (s) => window.statuses.push(s));
      window.client.connect();
    }, { url: server.url, ...options });
    return page;
  }
  const online = async (user) => (await server.get(`/admin/presence?user=${user}`)).online;
  const received = (page, data) => page.waitForFunction(
    (d) => window.got.some((g) => JSON.stringify(g) === JSON.stringify(d)), data, { timeout: 10000 });

  for (const transport of ['ws', 'sse', 'poll']) {
    test(`${transport}: admitted as the cookie's user, a live promotion, then a resume`, async () => {
      const shopper = uniqueUser(`shopper-${transport}`);
      const page = await openShopPage(shop.origin, shopper, { transport, withCredentials: true });
      try {
        await waitUntil(`${shopper} online`, () => online(shopper));
        await page.waitForFunction(() => window.client.state === 'open', null, { timeout: 10000 });
        assert.equal(await online('guest'), false, 'admitted as the user the page asked for, not the cookie\'s');
        await server.publish({ user: shopper, data: { live: transport } });
        await received(page, { live: transport });

        await page.evaluate(() => window.client.close());
        await server.publish({ user: shopper, data: { missed: transport } });
        await page.evaluate(() => window.client.connect());
        await received(page, { missed: transport });
        const statuses = await page.evaluate(() => window.statuses);
        assert.ok(statuses.every((s) => s.transport === transport), JSON.stringify(statuses));
      } finally {
        await page.close();
      }
    });
  }

  test('without withCredentials a long-poll carries no cookie: the hook refuses it, and the page can read why', async () => {
    const shopper = uniqueUser('shopper-nocookie');
    const page = await openShopPage(shop.origin, shopper, { transport: 'poll' });
    try {
      await page.waitForFunction(() => window.statuses.some((s) => s.reason === 'forbidden'), null, { timeout: 10000 });
      assert.equal(await online(shopper), false);
    } finally {
      await page.close();
    }
  });

  // Before any other test makes the server refuse an origin: the refusals share one line a second.
  test('a page of an origin not listed gets nothing, and the server names --allowed-origins', async () => {
    const started = Date.now();
    assert.ok(!server.log().includes('refused 403'), 'no refusal before this test');
    const shopper = uniqueUser('shopper-stranger');
    const pages = await Promise.all(['ws', 'sse', 'poll'].map((transport) =>
      openShopPage(stranger.origin, shopper, { transport, withCredentials: true })));
    try {
      await server.publish({ user: shopper, data: { for: 'stranger' } });
      // Each has failed at least once (the long-poll can read its 403: reason `origin`).
      for (const page of pages) {
        await page.waitForFunction(() => window.statuses.some((s) => s.reason), null, { timeout: 10000 });
      }
      await pages[2].waitForFunction(() => window.statuses.some((s) => s.reason === 'origin'), null, { timeout: 10000 });
      for (const page of pages) {
        const { got, states } = await page.evaluate(() => ({ got: window.got, states: window.statuses.map((s) => s.state) }));
        assert.deepEqual(got, []);
        assert.ok(!states.includes('open'), states.join());
      }
      assert.equal(await online(shopper), false);
    } finally {
      await Promise.all(pages.map((p) => p.close()));
    }
    const seconds = (Date.now() - started) / 1000;
    const lines = server.log().split('\n').filter((l) => l.includes(`origin ${stranger.origin}:`));
    assert.ok(lines.length >= 1, server.log());
    // At most a line a second, however often the pages retried.
    assert.ok(lines.length <= Math.ceil(seconds) + 1, `${lines.length} lines in ${seconds} s:\n${lines.join('\n')}`);
    assert.match(lines[0], /--allowed-origins/u);
    assert.ok(!server.log().includes(`origin ${shop.origin}:`), 'the listed page was never refused');
  });

  test('a request with headers that need a preflight (Authorization, Last-Event-ID) passes it from the listed page only', async () => {
    // Past the Origin check a bad query is a 400: readable by the page only if the preflight and
    // the reply both granted it.
    const ask = (url) => fetch(url, {
      credentials: 'include',
      headers: { Authorization: 'Bearer not-checked', 'Last-Event-ID': '5' },
    }).then(async (r) => ({ status: r.status, body: await r.json() }), (e) => ({ failed: e.name }));
    const target = `${server.url}/poll?user=bad/name`;
    const listed = await browser.context.newPage();
    const unlisted = await browser.context.newPage();
    try {
      await listed.goto(`${shop.origin}/`);
      await unlisted.goto(`${stranger.origin}/`);
      const fromShop = await listed.evaluate(ask, target);
      assert.equal(fromShop.status, 400, JSON.stringify(fromShop));
      assert.equal(fromShop.body.error, 'bad_request');
      assert.deepEqual(await unlisted.evaluate(ask, target), { failed: 'TypeError' });
    } finally {
      await listed.close();
      await unlisted.close();
    }
  });
});
