// The pages' layout at a desktop size (1280 x 800) and a phone's (390 x 844): no card of the admin
// page scrolls sideways inside (the scheduled list's Cancel and the reach table's acked column
// show), the page itself does not either, and the storefront's promotions are above the fold on
// the phone, before the products.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { fakeSkip, launchBrowser, openStore, startServer, uniqueUser } from './support.mjs';

const SIZES = [{ width: 1280, height: 800 }, { width: 390, height: 844 }];

// What overflows sideways on the page: the document, or an element inside a card (its content
// wider than its box), or the last cell of a table row cut off by the card's edge.
function sidewaysOverflow() {
  const out = [];
  const root = document.documentElement;
  if (root.scrollWidth > window.innerWidth + 1) out.push(`the page: ${root.scrollWidth} > ${window.innerWidth}`);
  for (const card of document.querySelectorAll('.card')) {
    const title = card.querySelector('h2')?.textContent ?? card.className;
    const box = card.getBoundingClientRect();
    for (const el of [card, ...card.querySelectorAll('*')]) {
      if (el.offsetParent === null && el !== card) continue; // hidden
      if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflowX !== 'visible' &&
          !el.classList.contains('data')) {
        out.push(`${title}: <${el.tagName.toLowerCase()}> scrolls (${el.scrollWidth} > ${el.clientWidth})`);
      }
    }
    for (const cell of card.querySelectorAll('tr > :last-child')) {
      const r = cell.getBoundingClientRect();
      if (r.width > 0 && r.right > box.right + 1) out.push(`${title}: a last column ends at ${r.right} > ${box.right}`);
    }
  }
  return out;
}

describe('page layout at 1280 x 800 and 390 x 844', { skip: fakeSkip('the real pages and promotions') }, () => {
  let server;
  let browser;

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    // Something in every table: reach rows with long ids, a scheduled promotion with long data.
    for (let i = 0; i < 3; ++i) await server.publish({ data: { title: `Sale ${i}`, text: 'x'.repeat(80) } });
    await server.publish({ delay: '10m', users: ['alice', 'bob', 'carol'], ttl: '2h',
      data: { title: 'Flash sale for a very long list of appliances', code: 'SPRING-2026-EXTRA-LONG-CODE' } });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  for (const size of SIZES) {
    test(`admin page at ${size.width} x ${size.height}: nothing scrolls sideways`, async () => {
      const page = await browser.context.newPage();
      await page.setViewportSize(size);
      await page.goto(`${server.url}/admin`);
      await page.locator('#login[open]').waitFor();
      const dialog = await page.locator('#login').boundingBox();
      assert.ok(dialog.x >= 0 && dialog.x + dialog.width <= size.width, `the sign-in dialog is off screen: ${JSON.stringify(dialog)}`);
      await page.fill('#token', server.token);
      await page.click('#login-submit');
      await page.locator('#stats-status[data-state="open"]').waitFor();
      await page.locator('#scheduled:not([hidden]) tbody tr').first().waitFor();
      await page.locator('#reach:not([hidden]) tbody tr').first().waitFor();
      assert.deepEqual(await page.evaluate(sidewaysOverflow), []);
      // The Cancel button and the acked column are inside their cards.
      for (const [cell, card] of [['#scheduled tbody tr button', '#scheduled'], ['#reach thead th:nth-child(4)', '#reach']]) {
        const c = await page.locator(cell).first().boundingBox();
        const t = await page.locator(card).evaluate((el) => el.closest('.card').getBoundingClientRect().toJSON());
        assert.ok(c.x >= t.x && c.x + c.width <= t.x + t.width, `${cell} (${JSON.stringify(c)}) outside its card (${JSON.stringify(t)})`);
      }
      await page.close();
    });
  }

  test('storefront on a phone: promotions above the fold, before the products; no raw id in the header', async () => {
    const page = await openStore(browser.context, server.url, { user: uniqueUser('phone') });
    await page.setViewportSize(SIZES[1]);
    const panel = await page.locator('.promotions-panel').boundingBox();
    const products = await page.locator('#products').boundingBox();
    assert.ok(panel.y + 60 < SIZES[1].height, `the promotions start at ${panel.y} px, below the fold`);
    assert.ok(panel.y < products.y, `the promotions (${panel.y}) come after the products (${products.y})`);
    assert.deepEqual(await page.evaluate(() => (document.documentElement.scrollWidth > window.innerWidth + 1 ? ['the page scrolls sideways'] : [])), []);
    await server.publish({ data: { title: 'Phone deal' } });
    await page.locator('#promotions li').first().waitFor();
    const header = await page.textContent('.topbar');
    assert.doesNotMatch(header, /\d{13,}/u, `a raw id in the header: ${header}`);
    await page.close();
  });
});
