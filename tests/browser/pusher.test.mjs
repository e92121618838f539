// pusher-js 8 in Chromium against the real server's Pusher door (docs/pusher.md): the browser
// build from npm (tests/package.json) loaded into a page of the server's origin, configured as a
// shop moving onto ringcast would (host, port, forceTLS, enabledTransports); a public channel gets
// a ringcast admin publish, a private channel is authorized by the `pusher` SDK in Node (the
// shop's auth endpoint), and a client event from Node's pusher-js reaches the page.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import Pusher from 'pusher';
import { fakeSkip, launchBrowser, startServer } from './support.mjs';
import { pusherClient } from '../integration/pusher_client.mjs';

const require = createRequire(import.meta.url);
const app = { appId: 'browser-app', key: 'browser-key', secret: 'browser-secret' };

describe('pusher-js in Chromium', { skip: fakeSkip('the Pusher door is the real server\'s') }, () => {
  let server;
  let browser;
  let page;
  let backend;

  before(async () => {
    server = await startServer(['--pusher-app-id', app.appId, '--pusher-key', app.key,
      '--pusher-secret', app.secret, '--pusher-client-events']);
    const { hostname, port } = new URL(server.url);
    server.host = hostname;
    server.port = Number(port);
    backend = new Pusher({ ...app, host: hostname, port, useTLS: false });
    browser = await launchBrowser();
    page = await browser.context.newPage();
    await page.exposeFunction('authorizeChannel',
      (socketId, channel) => backend.authorizeChannel(socketId, channel));
    // A page of the server's origin, which loads pusher-js as a shop's page would, from its own
    // origin (the server's pages allow scripts of 'self' only; the file is npm's).
    await page.route(`${server.url}/vendor/pusher.min.js`, (route) => route.fulfill({
      contentType: 'text/javascript', path: require.resolve('pusher-js/dist/web/pusher.min.js'),
    }));
    await page.goto(`${server.url}/`);
    await page.addScriptTag({ url: `${server.url}/vendor/pusher.min.js` });
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });

  test('connects, hears a ringcast publish on a public channel and a client event on a private one', { timeout: 30000 }, async () => {
    const socketId = await page.evaluate(({ key, host, port }) => new Promise((resolve, reject) => {
      window.heard = [];
      window.client = new window.Pusher(key, {
        wsHost: host,
        wsPort: port,
        forceTLS: false,
        enabledTransports: ['ws'],
        cluster: 'unused',
        channelAuthorization: {
          customHandler: ({ socketId: id, channelName }, callback) =>
            window.authorizeChannel(id, channelName).then((auth) => callback(null, auth)),
        },
      });
      window.client.connection.bind('connected', () => resolve(window.client.connection.socket_id));
      window.client.connection.bind('failed', () => reject(new Error('failed')));
    }), { key: app.key, host: server.host, port: server.port });
    assert.match(socketId, /^\d+\.\d+$/u);

    await page.evaluate(() => Promise.all(['sale', 'private-chat'].map((name) => new Promise((resolve, reject) => {
      const channel = window.client.subscribe(name);
      channel.bind('pusher:subscription_succeeded', resolve);
      channel.bind('pusher:subscription_error', reject);
      channel.bind_global((event, data) => {
        if (!event.startsWith('pusher')) window.heard.push({ channel: name, event, data });
      });
    }))));
    await server.publish({ channel: 'sale', data: { price: 9 }, event: 'promo' });
    const other = await pusherClient(server, app);
    try {
      const chat = await other.subscribe('private-chat');
      chat.trigger('client-typing', { on: true });
      await page.waitForFunction(() => window.heard.length >= 2, null, { timeout: 5000 });
      const heard = await page.evaluate(() => window.heard);
      assert.deepEqual(heard.sort((x, y) => x.channel.localeCompare(y.channel)), [
        { channel: 'private-chat', event: 'client-typing', data: { on: true } },
        { channel: 'sale', event: 'promo', data: { price: 9 } },
      ]);
    } finally {
      other.close();
    }
  });
});
