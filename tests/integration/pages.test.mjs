// docs/protocol.md, "Pages": the demo and admin pages, served with no internet.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from './harness.mjs';

let srv;
before(async () => { srv = await startServer([]); });
after(async () => { await srv?.stop(); });

for (const path of ['/', '/admin']) {
  test(`GET ${path} is an HTML page that loads nothing from the internet`, async () => {
    const r = await srv.get(path);
    assert.equal(r.status, 200);
    assert.match(r.headers['content-type'], /^text\/html/);
    assert.match(r.text, /<html|<!doctype html/i);
    // Works offline: no scripts, styles or fonts from other hosts.
    const external = [...r.text.matchAll(/(?:src|href)\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)/gi)]
      .map((m) => m[1])
      .filter((u) => !/^(?:https?:)?\/\/(127\.0\.0\.1|localhost)/.test(u));
    const loaded = external.filter((u) => /\.(js|mjs|css|woff2?|ttf)(\?|$)/i.test(u));
    assert.deepEqual(loaded, [], `${path} loads assets from the internet`);
  });
}

test('the admin page needs no token to load (it asks for one)', async () => {
  const r = await srv.get('/admin');
  assert.equal(r.status, 200);
});
