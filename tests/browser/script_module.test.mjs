// The served client as an ES module (docs/client.md, "As a script tag"): /ringcast.mjs imports the
// classic script /ringcast.js beside it and exports its class, so a page that only imports the
// module gets a working client, and the client is downloaded once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { launchBrowser, startServer, uniqueUser } from './support.mjs';

describe('/ringcast.mjs', () => {
  let server;
  let browser;

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('a page that only imports the module receives a publish; /ringcast.js is fetched once', async () => {
    const page = await browser.context.newPage();
    const scripts = [];
    page.on('request', (r) => {
      if (r.resourceType() === 'script') scripts.push(new URL(r.url()).pathname);
    });
    // A same-origin document that runs no script (the client's source shown as text), so nothing
    // but the module can define the client.
    await page.goto(`${server.url}/ringcast.js`);
    const user = uniqueUser('module');
    const exported = await page.evaluate(async (u) => {
      const mod = await import('/ringcast.mjs');
      window.received = [];
      const client = new mod.RingcastClient({ user: u, transport: 'ws' });
      client.on('message', (m) => window.received.push(m.data));
      client.connect();
      await new Promise((resolve) => client.on('status', (s) => s.state === 'open' && resolve()));
      return { same: mod.default === mod.RingcastClient, type: typeof mod.RingcastClient };
    }, user);
    assert.deepEqual(exported, { same: true, type: 'function' });

    await server.publish({ data: { title: 'module' }, user });
    await page.waitForFunction(() => window.received.length === 1, null, { timeout: 10000 });
    assert.deepEqual(await page.evaluate(() => window.received), [{ title: 'module' }]);
    assert.deepEqual(scripts.sort(), ['/ringcast.js', '/ringcast.mjs']);
    await page.close();
  });
});
