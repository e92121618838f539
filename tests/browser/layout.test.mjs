// The pages' layout at a desktop size (1280 x 800) and a phone's (390 x 844): no card of the admin
// page scrolls sideways inside (the scheduled list's Cancel and the reach table's acked column
// show), the page itself does not either, no word is broken across lines, no card is stretched
// past what it holds, the reach rows are named by title, and at 1280 a spread publish's chart is
// beside the form on the first screen; the storefront's promotions are above the fold on the
// phone, before the products.
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

// Words broken inside (a letter or a few per line: "reci/pie/nts"): each word of the cards' text,
// cut at spaces and after hyphens (where a browser may break), must lie on one line.
function brokenWords() {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!el.closest('.card, .topbar') || el.closest('canvas') || el.offsetParent === null) continue;
    for (const m of node.textContent.matchAll(/[^\s-]+-?/gu)) {
      const range = document.createRange();
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)));
      if (tops.size > 1) out.push(`"${m[0]}" in <${el.tagName.toLowerCase()}> over ${tops.size} lines`);
    }
  }
  return out;
}

// A card taller than what it holds (stretched to its row's height by a neighbour).
function stretchedCards() {
  const out = [];
  for (const card of document.querySelectorAll('.cards > .card')) {
    const shown = [...card.children].filter((c) => c.offsetParent !== null);
    if (shown.length === 0) continue;
    const style = getComputedStyle(card);
    const contentBottom = Math.max(...shown.map((c) => c.getBoundingClientRect().bottom + parseFloat(getComputedStyle(c).marginBottom)));
    const spare = card.getBoundingClientRect().bottom - parseFloat(style.borderBottomWidth) - parseFloat(style.paddingBottom) - contentBottom;
    if (spare > 2) out.push(`${card.querySelector('h2')?.textContent}: ${Math.round(spare)} px of nothing`);
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
      assert.deepEqual(await page.evaluate(brokenWords), []);
      assert.deepEqual(await page.evaluate(stretchedCards), []);
      // The Cancel and Take down buttons and the acked figures are inside their cards.
      for (const [cell, card] of [['#scheduled tbody tr button', '#scheduled'], ['#reach tbody [data-testid="acked"]', '#reach'],
        ['#reach tbody [data-testid="take-down"]', '#reach']]) {
        const c = await page.locator(cell).first().boundingBox();
        const t = await page.locator(card).evaluate((el) => el.closest('.card').getBoundingClientRect().toJSON());
        assert.ok(c.x >= t.x && c.x + c.width <= t.x + t.width, `${cell} (${JSON.stringify(c)}) outside its card (${JSON.stringify(t)})`);
      }
      // Reach rows are named by the promotion's title, not by a sixteen-digit id.
      const names = await page.$$eval('#reach tbody [data-testid="label"]', (cells) => cells.map((c) => c.textContent));
      assert.ok(names.length >= 3, JSON.stringify(names));
      assert.deepEqual(names.filter((n) => /\d{16}/u.test(n)), [], `ids for names: ${JSON.stringify(names)}`);
      assert.ok(['Sale 0', 'Sale 1', 'Sale 2'].every((t) => names.includes(t)), JSON.stringify(names));
      // The page is as long as its content, not thousands of pixels of squeezed columns.
      const height = await page.evaluate(() => document.documentElement.scrollHeight);
      assert.ok(height < (size.width < 500 ? 3600 : 2200), `the page is ${height} px tall`);
      await page.close();
    });
  }

  // What a publish does is seen where it was asked for: the chart of a spread publish beside the
  // form, on the first screen, with no empty card stretched beside them.
  test('admin page at 1280 x 800: a spread publish\'s chart is beside the form, on the first screen', async () => {
    const size = SIZES[0];
    const page = await browser.context.newPage();
    await page.setViewportSize(size);
    await page.goto(`${server.url}/admin`);
    await page.locator('#login[open]').waitFor();
    await page.fill('#token', server.token);
    await page.click('#login-submit');
    await page.locator('#stats-status[data-state="open"]').waitFor();
    await page.fill('#publish-spread', '2s');
    await page.fill('#publish-data', JSON.stringify({ title: 'Spread beside the form' }));
    await page.click('[data-testid="publish-submit"]');
    await page.waitForFunction(() => /^Published #\d+/u.test(document.querySelector('#publish-result').textContent));
    const id = (await page.textContent('#publish-result')).match(/#(\d+)/u)[1];
    await page.waitForFunction((i) => document.querySelector('#chart-deliveries').dataset.messageId === i, id);
    const form = await page.locator('#publish-form').evaluate((el) => el.closest('.card').getBoundingClientRect().toJSON());
    const feedback = await page.locator('[data-testid="publish-feedback"]').boundingBox();
    const chart = await page.locator('#chart-deliveries').boundingBox();
    assert.ok(feedback.x >= form.right && feedback.y < form.bottom && feedback.y + 1 >= form.top,
      `the chart's card (${JSON.stringify(feedback)}) is not beside the form's (${JSON.stringify(form)})`);
    assert.ok(chart.y + chart.height <= size.height, `the chart ends at ${chart.y + chart.height} px, below the first screen`);
    const button = await page.locator('[data-testid="publish-submit"]').boundingBox();
    assert.ok(button.y + button.height <= size.height, `the Publish button ends at ${button.y + button.height} px`);
    assert.deepEqual(await page.evaluate(stretchedCards), []);
    await page.close();
  });

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
