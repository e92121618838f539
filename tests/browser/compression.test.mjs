// Compression in Chromium (docs/protocol.md, "WebSocket compression"): the storefront over
// WebSocket (permessage-deflate, which Chromium always offers) and SSE (EventSource sends
// Accept-Encoding: gzip) receives a promotion in time, and the server counts it sent compressed on
// both: the page and ringcast.js need nothing new.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  fakeSkip, launchBrowser, openStore, startServer, uniqueUser,
} from './support.mjs';

describe('compression in Chromium', { skip: fakeSkip('the stand-in does not compress') }, () => {
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

  test('the storefront over a compressed WebSocket and a gzip event stream gets every promotion', async () => {
    const pages = [];
    for (const transport of ['ws', 'sse']) {
      pages.push(await openStore(browser.context, server.url, { user: uniqueUser(`z-${transport}`), transport }));
    }
    const before = await server.stats();
    const ids = [];
    for (let i = 0; i < 3; i++) {
      const data = {
        title: `Winter sale ${i}: 30% off outdoor jackets`,
        text: 'Alpine shell jacket 129.90 (was 185.00), down parka 199.00 (was 289.00). '.repeat(4),
        code: `WINTER${i}`,
      };
      ids.push((await server.publish({ data })).id);
    }
    for (const page of pages) {
      for (const id of ids) await page.locator(`#promotions li[data-id="${id}"]`).waitFor({ timeout: 5000 });
    }
    const after = await server.stats();
    // Each promotion compressed once per form (the WebSocket frame, the SSE piece) and sent
    // compressed to both pages.
    assert.equal(after.compression.messages_compressed - before.compression.messages_compressed, 2 * ids.length);
    assert.ok(after.compression.compressed_sent - before.compression.compressed_sent >= 2 * ids.length);
    assert.ok(after.compression.bytes_saved > before.compression.bytes_saved);
    for (const page of pages) await page.close();
  });

  // Issue 35: a long-poll reply of several messages is one gzip member written from each
  // message's shared gzip piece and a few bytes of the reply's own: Chromium's fetch (which asks
  // for gzip) inflates it, CRC-32 and size checked, to the reply the plain poll gets.
  test('a gzip long-poll reply of several messages, gathered from shared pieces, decodes in Chromium', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${server.url}/`);
    const first = (await server.publish({ data: { n: 'first' } })).id;
    const ids = [];
    for (let i = 0; i < 6; i++) {
      const text = `Catalogue page ${i}: hiking boots 89.00, trail socks 12.50, rain cover 24.00. `.repeat(20);
      ids.push((await server.publish({ data: { text } })).id);
    }
    const before = await server.stats();
    const reply = await page.evaluate(async (path) => {
      const r = await fetch(path);
      return { encoding: r.headers.get('content-encoding'), json: await r.json() };
    }, `/poll?user=${uniqueUser('z-poll')}&since=${first}`);
    const after = await server.stats();
    assert.equal(reply.encoding, 'gzip');
    assert.deepEqual(reply.json.messages.map((m) => m.id), ids);
    assert.equal(reply.json.last_id, ids.at(-1));
    assert.equal(after.compression.compressed_sent - before.compression.compressed_sent, ids.length);
    await page.close();
  });
});
