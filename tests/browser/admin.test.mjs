// The admin page served by the real server: the token dialog, publishing, kicking, errors, and
// the live picture of the wheel; and a screenshot for the README.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  USE_FAKE, fakeSkip, launchBrowser, openStore, screenshot, startServer, uniqueUser,
} from './support.mjs';

describe('admin page', () => {
  let server;
  let browser;
  let admin;
  const shoppers = []; // { user, page }: connected sessions for the wheel to show

  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    for (const transport of ['ws', 'sse', 'poll']) {
      const user = uniqueUser(`shopper-${transport}`);
      shoppers.push({ user, page: await openStore(browser.context, server.url, { user, transport }) });
    }
    admin = await browser.context.newPage();
    await admin.goto(`${server.url}/admin`);
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  const signIn = async (token) => {
    await admin.locator('#login[open]').waitFor();
    await admin.fill('#token', token);
    await admin.click('#login-submit');
  };

  test('asks for the token, refuses a wrong one, and goes live with the right one', async () => {
    await signIn('wrong-token');
    await admin.locator('#login-error:not([hidden])').waitFor();
    assert.match(await admin.textContent('#login-error'), /did not accept/);

    // Signed out: nothing to sign out of.
    assert.equal(await admin.locator('#sign-out').isVisible(), false, '"Sign out" shows while signed out');
    await signIn(server.token);
    await admin.locator('#stats-status[data-state="open"]').waitFor();
    assert.equal(await admin.locator('#login[open]').count(), 0);
    assert.equal(await admin.locator('#sign-out').isVisible(), true, 'no "Sign out" once signed in');
    // The token is kept for this tab only.
    const stored = await admin.evaluate(() => [sessionStorage.length, localStorage.length]);
    assert.deepEqual(stored, [1, 0]);
  });

  test('shows live stats with the connected sessions, and which node answered', async () => {
    await admin.waitForFunction(() => /ws 1, sse 1, poll 1/.test(document.querySelector('#stat-connections').textContent),
      null, { timeout: 10000 });
    // A single node without Redis: its listening address, nothing about a cluster.
    assert.equal(await admin.textContent('#stat-node'), (await server.stats()).node.address);
  });

  test('lists the top channels by presence, most sessions first', { skip: fakeSkip('presence is the real server\'s') }, async () => {
    // Four sessions of three users on one channel: more than any brand the shoppers listen to.
    const flash = uniqueUser('flash-sale');
    const [u1, u2, u3] = ['a', 'b', 'c'].map((p) => uniqueUser(`fan-${p}`));
    const fans = [];
    // A browser's tabs of one user share one connection and session (docs/client.md): u1's second
    // session is another browser's.
    const secondBrowser = await launchBrowser();
    for (const [context, user] of [[browser.context, u1], [secondBrowser.context, u1],
      [browser.context, u2], [browser.context, u3]]) {
      // WebSockets: Chromium holds at most 6 HTTP connections to a host, and the admin page needs one.
      fans.push(await openStore(context, server.url, { user, transport: 'ws', channels: [flash] }));
    }
    try {
      await admin.waitForFunction((name) => {
        const first = document.querySelector('#top-channels li');
        return first?.dataset.channel === name && /3 users, 4 sessions/.test(first.textContent);
      }, flash, { timeout: 10000 });
      // Every brand the three shoppers listen to is listed after it, with its own counts.
      const items = await admin.$$eval('#top-channels li', (lis) => lis.map((li) => li.textContent));
      assert.ok(items.length >= 2 && items.length <= 10, JSON.stringify(items));
    } finally {
      for (const page of fans) await page.close();
      await secondBrowser.close();
    }
  });

  test('draws the wheel with every connected session', async () => {
    // The picture shows what the server's wheel holds: the same number of timers and occupied
    // slots in its two rings as /admin/stats reports (read until the page has drawn the same
    // state), and every session has its timer there.
    const sum = (levels) => levels.flat().reduce((a, b) => a + b, 0);
    let last;
    for (let i = 0; i < 100; i++) {
      const stats = await server.stats();
      const levels = stats.wheel.occupancy.slice(0, 2);
      const drawn = await admin.$eval('#wheel', (c) => ({ ...c.dataset }));
      last = { drawn, timers: sum(levels), slots: levels.flat().filter((n) => n > 0).length,
        sessions: stats.sessions.total, connected: stats.sessions.connected };
      if (Number(drawn.occupied) === last.timers && Number(drawn.occupiedSlots) === last.slots) break;
      await admin.waitForTimeout(100);
    }
    assert.equal(Number(last.drawn.occupied), last.timers, JSON.stringify(last));
    assert.equal(Number(last.drawn.occupiedSlots), last.slots, JSON.stringify(last));
    assert.ok(last.connected >= shoppers.length, JSON.stringify(last));
    assert.ok(last.timers >= last.sessions, `fewer timers drawn than sessions: ${JSON.stringify(last)}`);
    assert.ok(Number(last.drawn.tick) > 0);
  });

  const noPromotions = { skip: fakeSkip('the stand-in has no users, ttl, schedule or reach') };
  test('publishes to a list of users for a while, and shows its reach live', noPromotions, async () => {
    const [ws, sse] = shoppers;
    await admin.selectOption('#publish-audience', 'users');
    await admin.fill('#publish-target', `${ws.user}, ${sse.user}`);
    await admin.fill('#publish-ttl', '1h');
    await admin.fill('#publish-data', JSON.stringify({ title: 'For two shoppers' }));
    await admin.click('[data-testid="publish-submit"]');
    await admin.waitForFunction(() => /Published #\d+ to 2 live/.test(document.querySelector('#publish-result').textContent));
    const id = (await admin.textContent('#publish-result')).match(/#(\d+)/)[1];
    for (const { page } of [ws, sse]) {
      await page.locator(`#promotions li[data-id="${id}"] .countdown`).waitFor();
    }
    // The WebSocket shopper acknowledges what it shows (SSE cannot): the reach row says so.
    const row = admin.locator(`#reach tr[data-id="${id}"]`);
    await admin.waitForFunction((i) => document.querySelector(`#reach tr[data-id="${i}"] [data-testid="acked"]`)?.textContent === '1',
      id, { timeout: 10000 });
    assert.equal(await row.locator('[data-testid="delivered"]').textContent(), '2');
    await admin.fill('#publish-ttl', '');
  });

  test('schedules a promotion, lists it, and cancels it', noPromotions, async () => {
    await admin.selectOption('#publish-audience', 'broadcast');
    const inAnHour = await admin.evaluate(() => {
      const d = new Date(Date.now() + 3600_000);
      d.setMinutes(d.getMinutes() - d.getTimezoneOffset()); // datetime-local wants local time
      return d.toISOString().slice(0, 19);
    });
    await admin.fill('#publish-at', inAnHour);
    await admin.fill('#publish-data', JSON.stringify({ title: 'Tomorrow\'s sale' }));
    await admin.click('[data-testid="publish-submit"]');
    await admin.waitForFunction(() => /^Scheduled \S+ for /.test(document.querySelector('#publish-result').textContent),
      null, { timeout: 5000 }).catch(async (e) => { throw new Error(`${e.message}: ${await admin.textContent('#publish-result')}`); });
    const id = (await admin.textContent('#publish-result')).split(' ')[1];
    const row = admin.locator(`#scheduled tr[data-scheduled="${id}"]`);
    await row.waitFor();
    assert.equal(await row.locator('td').nth(1).textContent(), 'everyone');
    await row.locator('[data-testid="cancel-scheduled"]').click();
    await row.waitFor({ state: 'detached' });
    assert.equal(await admin.textContent('#scheduled-result'), `Cancelled ${id}.`);
    const listed = await server.get('/admin/scheduled');
    assert.deepEqual(listed.scheduled, []);
    await admin.fill('#publish-at', '');
  });

  test('publishes a promotion to one user, and the storefront shows it', async () => {
    const { user, page } = shoppers[0];
    await admin.selectOption('#publish-audience', 'user');
    await admin.fill('#publish-target', user);
    await admin.fill('#publish-data', JSON.stringify({ title: 'From the admin page', code: 'ADMIN1' }));
    await admin.click('[data-testid="publish-submit"]');
    await admin.waitForFunction(() => /Published #\d+ to 1 live/.test(document.querySelector('#publish-result').textContent));
    const id = (await admin.textContent('#publish-result')).match(/#(\d+)/)[1];
    await page.locator(`#promotions li[data-id="${id}"] .title`).waitFor();
    assert.equal(await page.textContent(`#promotions li[data-id="${id}"] .title`), 'From the admin page');
  });

  // The options of one publish (when, for how long, how spread, sticky) are not repeated by the next
  // one; a "Publish at" already past, which would go out to everyone at once, is asked about first.
  test('clears the one-off options after a publish, and asks before a past "Publish at" publishes at once', async () => {
    const result = () => admin.textContent('#publish-result');
    await admin.selectOption('#publish-audience', 'broadcast');
    await admin.fill('#publish-ttl', '1h');
    await admin.fill('#publish-spread', '1s');
    await admin.check('#publish-sticky');
    await admin.fill('#publish-data', JSON.stringify({ title: 'Once with options' }));
    // An earlier test's "Published #…" must not pass for this publish's.
    await admin.evaluate(() => { document.querySelector('#publish-result').textContent = ''; });
    await admin.click('[data-testid="publish-submit"]');
    await admin.waitForFunction(() => /^Published #\d+/u.test(document.querySelector('#publish-result').textContent));
    assert.deepEqual(await admin.evaluate(() => ['publish-at', 'publish-ttl', 'publish-spread'].map((id) => document.getElementById(id).value)),
      ['', '', ''], 'the one-off options are kept for the next publish');
    assert.equal(await admin.isChecked('#publish-sticky'), false, 'sticky is kept for the next publish');
    assert.match(await admin.inputValue('#publish-data'), /Once with options/u, 'the data is kept: it is what one edits next');

    // To the minute: Chromium gives a datetime-local's value back without ":00" seconds.
    const anHourAgo = await admin.evaluate(() => {
      const d = new Date(Date.now() - 3600_000);
      d.setMinutes(d.getMinutes() - d.getTimezoneOffset());
      return d.toISOString().slice(0, 16);
    });
    const published = (await server.stats()).messages.published;
    const asked = [];
    const answer = (accept) => admin.once('dialog', (dialog) => {
      asked.push({ type: dialog.type(), message: dialog.message() });
      return accept ? dialog.accept() : dialog.dismiss();
    });
    await admin.fill('#publish-at', anHourAgo);
    answer(false);
    await admin.click('[data-testid="publish-submit"]');
    await admin.waitForFunction(() => /^Not published/u.test(document.querySelector('#publish-result').textContent));
    assert.equal(asked.length, 1);
    assert.equal(asked[0].type, 'confirm');
    assert.match(asked[0].message, /in the past: publish it now\?/u);
    assert.equal((await server.stats()).messages.published, published, 'declined, yet published');
    assert.equal(await admin.inputValue('#publish-at'), anHourAgo, 'declined: the form is left to correct');

    answer(true);
    await admin.click('[data-testid="publish-submit"]');
    await admin.waitForFunction(() => /^Published #\d+/u.test(document.querySelector('#publish-result').textContent));
    assert.equal(asked.length, 2);
    assert.equal((await server.stats()).messages.published, published + 1);
    assert.equal(await admin.inputValue('#publish-at'), '');
    assert.match(await result(), /^Published #/u);
  });

  test('shows the server\'s error message for a bad request', async () => {
    await admin.selectOption('#publish-audience', 'channel');
    await admin.fill('#publish-target', 'not a channel!');
    await admin.fill('#publish-data', '{"title": "x"}');
    await admin.click('[data-testid="publish-submit"]');
    await admin.locator('#publish-result.error').waitFor();
    assert.match(await admin.textContent('#publish-result'), /^bad_request: ./);
  });

  test('refuses data that is not JSON before sending it', async () => {
    await admin.fill('#publish-data', '{not json');
    await admin.click('[data-testid="publish-submit"]');
    assert.match(await admin.textContent('#publish-result'), /not valid JSON/);
  });

  test('kicks a user, whose storefront then stops', async () => {
    const { user, page } = shoppers[2];
    await admin.fill('#kick-user', user);
    await admin.click('[data-testid="kick-submit"]');
    await admin.waitForFunction(() => /Kicked 1 session/.test(document.querySelector('#kick-result').textContent));
    await page.locator('#status[data-state="closed"]').waitFor({ timeout: 10000 });
  });

  test('screenshot of the admin page', async () => {
    // Some traffic through the form, so that the charts have something to draw and the form
    // shows a success rather than the previous tests' errors.
    await admin.selectOption('#publish-audience', 'broadcast');
    for (let i = 1; i <= 5; i++) {
      await admin.fill('#publish-data', JSON.stringify({ title: `Flash deal ${i}`, text: 'Today only', code: `FLASH${i}` }));
      await admin.click('[data-testid="publish-submit"]');
      await admin.waitForTimeout(700);
    }
    await admin.waitForFunction(() => /Published #/.test(document.querySelector('#publish-result').textContent));
    await admin.evaluate(() => { document.querySelector('#publish-target').value = ''; });
    if (!USE_FAKE) {
      // A promotion waiting for its time, so that the picture shows the scheduled list too (the
      // stand-in takes no pictures for the README).
      await server.publish({ delay: '2h', ttl: '1h', users: ['alice', 'bob'], data: { title: 'Weekend sale', code: 'WEEKEND' } });
      await admin.locator('#scheduled:not([hidden]) tbody tr').first().waitFor({ timeout: 10000 });
    }
    await screenshot(admin, 'admin');
  });

  test('asks for the token again when the server stops accepting it', async () => {
    await admin.evaluate(() => sessionStorage.setItem('ringcast.adminToken', 'revoked'));
    await admin.locator('#login[open]').waitFor({ timeout: 5000 });
  });
});
