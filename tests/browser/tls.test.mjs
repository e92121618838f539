// The storefront over HTTPS (--tls-cert/--tls-key): the client library follows the page's scheme,
// so on an https:// page it connects with wss:// (Chromium would refuse ws:// there) and
// https:// for SSE and long-poll, and promotions arrive on every transport.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  fakeSkip, launchBrowser, openStore, startServer, uniqueUser,
} from './support.mjs';

describe('storefront over TLS', { skip: fakeSkip('the stand-in server has no TLS') }, () => {
  let server;
  let browser;

  before(async () => {
    server = await startServer(['--threads', '2'], { tls: true });
    browser = await launchBrowser({ ignoreHTTPSErrors: true });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const transport of ['ws', 'sse', 'poll']) {
    test(`a promotion reaches an https:// page (${transport})`, async () => {
      assert.match(server.url, /^https:/);
      const user = uniqueUser(`tls-${transport}`);
      const page = await openStore(browser.context, server.url, { user, transport });
      assert.equal(await page.textContent('#transport'), transport);
      // The port speaks nothing but TLS: a stream the server counts came over wss/https. (A
      // long-poll is counted only while held, and an https:// page cannot poll http:// anyway.)
      if (transport !== 'poll') {
        const stats = await server.stats();
        assert.ok(stats.connections[transport] >= 1, JSON.stringify(stats.connections));
      }
      const { id } = await server.publish({ user, data: { title: `Secure deal (${transport})` } });
      const item = page.locator(`#promotions li[data-id="${id}"]`);
      await item.waitFor({ timeout: 10000 });
      assert.equal(await item.locator('.title').textContent(), `Secure deal (${transport})`);
      await page.close();
    });
  }
});
