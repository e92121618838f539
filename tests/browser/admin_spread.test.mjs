// The admin page's paced publish (docs/protocol.md, "Paced publish"): the form's "spread over"
// field, the server's 400 for a bad spread, and the live chart of the last promotion's deliveries
// per second, read from what the page drew (the canvas's data- attributes), not from pixels.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { fakeSkip, launchBrowser, startServer, uniqueUser } from './support.mjs';

async function waitFor(ok, ms, what) {
  const deadline = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const CLIENTS = 20;
const SPREAD_MS = 3000;
// How late the page's reading after the window may start: the last turn (a tick late), and one
// reading interval (a second) with its round trip.
const LAST_READING_MS = SPREAD_MS + 1000;

// A WebSocket session opened from here, which records when each message envelope arrived.
async function connect(url, user) {
  const ws = new WebSocket(`${url.replace(/^http/u, 'ws')}/ws?user=${encodeURIComponent(user)}`);
  const messages = [];
  await new Promise((resolve, reject) => {
    ws.on('message', (raw) => {
      const envelope = JSON.parse(String(raw));
      if (envelope.type === 'hello') resolve();
      if (envelope.type === 'message') messages.push({ at: Date.now(), envelope });
    });
    ws.on('error', reject);
  });
  return { ws, messages };
}

describe('admin page: paced publish', { skip: fakeSkip('the stand-in has no paced publish') }, () => {
  let server;
  let browser;
  let admin;
  const clients = [];

  before(async () => {
    // A small --max-spread, so that the form's over-the-limit error is quick to provoke.
    server = await startServer(['--max-spread', '5s', '--tick-ms', '50']);
    browser = await launchBrowser();
    for (let i = 0; i < CLIENTS; i++) clients.push(await connect(server.url, uniqueUser(`paced-${i}`)));
    admin = await browser.context.newPage();
    await admin.goto(`${server.url}/admin`);
    await admin.locator('#login[open]').waitFor();
    await admin.fill('#token', server.token);
    await admin.click('#login-submit');
    await admin.locator('#stats-status[data-state="open"]').waitFor();
  });
  after(async () => {
    for (const { ws } of clients) ws.terminate();
    await browser?.close();
    await server?.stop();
  });

  const publish = async (spread, title) => {
    await admin.selectOption('#publish-audience', 'broadcast');
    await admin.fill('#publish-spread', spread);
    await admin.fill('#publish-data', JSON.stringify({ title }));
    await admin.evaluate(() => { document.querySelector('#publish-result').textContent = ''; });
    await admin.click('[data-testid="publish-submit"]');
    await admin.waitForFunction(() => document.querySelector('#publish-result').textContent !== '');
    return admin.textContent('#publish-result');
  };

  // What the chart drew for message `id`, once it has stopped reading.
  const chartOf = async (id, timeout) => {
    await admin.waitForFunction((i) => {
      const c = document.querySelector('#chart-deliveries');
      return c.dataset.messageId === i && c.dataset.state !== 'reading';
    }, String(id), { timeout });
    const data = await admin.$eval('#chart-deliveries', (c) => ({ ...c.dataset }));
    return { ...data, intervals: JSON.parse(data.intervals), spreadMs: Number(data.spreadMs) };
  };

  test('shows the server\'s 400 for a bad spread, and publishes nothing', async () => {
    const before = (await server.stats()).messages.last_id;
    assert.match(await publish('-1s', 'never'), /^bad_request: spread: expected a duration/);
    assert.match(await admin.getAttribute('#publish-result', 'class'), /\berror\b/);
    assert.equal(await publish('6s', 'never'), 'bad_request: spread: at most 5s (--max-spread)');
    assert.equal((await server.stats()).messages.last_id, before);
    for (const { messages } of clients) assert.deepEqual(messages, []);
  });

  test(`a publish spread over 3s to ${CLIENTS} clients: the chart shows its deliveries across the window`, async () => {
    const published = Date.now();
    const result = await publish('3s', 'Paced sale');
    const match = new RegExp(`^Published #(\\d+) to ${CLIENTS} live session`, 'u').exec(result);
    assert.ok(match, result);
    const id = Number(match[1]);
    const chart = await chartOf(id, SPREAD_MS + 8000);

    assert.equal(chart.state, 'done');
    assert.equal(chart.spreadMs, SPREAD_MS); // read back from the server: the form sent "3s"
    const counts = chart.intervals.map((b) => b.count);
    const sum = counts.reduce((a, b) => a + b, 0);
    assert.equal(sum, CLIENTS, JSON.stringify(chart.intervals));
    assert.equal(Number(chart.delivered), CLIENTS);
    // Spread across several seconds: more than one reading saw deliveries, none saw them all, and
    // none came in an interval that began after the window (and its last tick) was over.
    assert.ok(counts.filter((c) => c > 0).length >= 2, JSON.stringify(chart.intervals));
    assert.ok(Math.max(...counts) < CLIENTS, JSON.stringify(chart.intervals));
    for (const b of chart.intervals.filter((i) => i.count > 0)) {
      assert.ok(b.from < LAST_READING_MS, `deliveries after the window: ${JSON.stringify(chart.intervals)}`);
    }
    // The page kept reading past the window, then stopped.
    assert.ok(chart.intervals.at(-1).to > SPREAD_MS, JSON.stringify(chart.intervals));
    assert.match(await admin.textContent('#deliveries-summary'),
      new RegExp(`^#${id}, spread over 3 s: ${CLIENTS} delivered of ${CLIENTS} recipient`, 'u'));

    // What the clients saw agrees: each got it once, at its own turn within the window.
    const arrivals = clients.map(({ messages }) => {
      assert.equal(messages.length, 1);
      assert.equal(messages[0].envelope.id, id);
      assert.equal(messages[0].envelope.spread_ms, SPREAD_MS);
      return messages[0].at - published;
    });
    assert.ok(Math.max(...arrivals) - Math.min(...arrivals) > 1000, `arrivals ${arrivals}`);
    // The server's own count, and the reach list beside the chart, say the same.
    const reach = await server.get(`/admin/messages/${id}`);
    assert.equal(reach.delivered, CLIENTS);
    assert.equal(reach.spread, '3s');
    await admin.waitForFunction(([i, n]) => document.querySelector(`#reach tr[data-id="${i}"] [data-testid="delivered"]`)
      ?.textContent === n, [String(id), String(CLIENTS)], { timeout: 5000 });
  });

  test('an immediate publish: the chart shows every delivery in its first reading, and follows the newest', async () => {
    for (const { messages } of clients) messages.length = 0;
    const result = await publish('', 'At once');
    const id = Number(new RegExp(`^Published #(\\d+) to ${CLIENTS} live`, 'u').exec(result)?.[1]);
    assert.ok(id > 0, result);
    const chart = await chartOf(id, 8000);
    assert.equal(chart.state, 'done');
    assert.equal(chart.spreadMs, 0);
    assert.equal(chart.intervals[0].count, CLIENTS, JSON.stringify(chart.intervals));
    assert.ok(chart.intervals.slice(1).every((b) => b.count === 0), JSON.stringify(chart.intervals));
    assert.match(await admin.textContent('#deliveries-summary'), new RegExp(`, at once: ${CLIENTS} delivered of ${CLIENTS} recipient`, 'u'));
    for (const { messages } of clients) assert.equal(messages.length, 1);
  });

  test('a scheduled promotion that goes out, and one published through the API, become the last promotion', async () => {
    for (const { messages } of clients) messages.length = 0;
    await admin.fill('#publish-spread', '');
    const at = new Date(Date.now() + 2500);
    // datetime-local takes the browser's local time, to the minute or second: give it seconds.
    const local = new Date(at.getTime() - at.getTimezoneOffset() * 60000).toISOString().slice(0, 19);
    await admin.fill('#publish-at', local);
    const result = await publish('', 'Later');
    await admin.fill('#publish-at', '');
    assert.match(result, /^Scheduled /u);
    await Promise.all(clients.map(({ messages }) =>
      waitFor(() => messages.length === 1, 10000, 'the scheduled publish')));
    const id = clients[0].messages[0].envelope.id;
    const chart = await chartOf(id, 10000);
    assert.equal(chart.intervals.reduce((sum, b) => sum + b.count, 0), CLIENTS, JSON.stringify(chart.intervals));
    await admin.locator(`#reach tr[data-id="${id}"]`).waitFor({ timeout: 5000 });

    const viaApi = (await server.publish({ data: { title: 'Through the API' } })).id;
    await admin.waitForFunction((i) => document.querySelector('#chart-deliveries').dataset.messageId === i,
      String(viaApi), { timeout: 5000 });
    await admin.locator(`#reach tr[data-id="${viaApi}"]`).waitFor({ timeout: 5000 });
  });
});
