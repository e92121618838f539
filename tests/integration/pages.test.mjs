// docs/protocol.md, "Pages": the demo and admin pages, served with no internet.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, rawConnect } from './harness.mjs';

let srv;
before(async () => { srv = await startServer([]); });
after(async () => { await srv?.stop(); });

const LOCAL = /^(?:https?:)?\/\/(?:127\.0\.0\.1|localhost)(?:[:/]|$)/u;
const REMOTE = /^(?:[a-z][a-z0-9+.-]*:)?\/\//iu; // http://, https://, ws://, protocol-relative //

// What a page or one of its assets would fetch: HTML src= and <link href=> (not <a href=>, a
// link the user may follow), CSS url() and @import, JS import/import()/fetch/new WebSocket/
// EventSource of a literal, whatever the URL looks like (an extension or none).
function loadedUrls(text, kind) {
  const urls = [];
  const add = (re) => { for (const m of text.matchAll(re)) urls.push(m[1]); };
  if (kind === 'html') {
    add(/\bsrc\s*=\s*["']?([^"'\s>]+)/giu);
    for (const tag of text.matchAll(/<link\b[^>]*>/giu)) {
      const href = /\bhref\s*=\s*["']?([^"'\s>]+)/iu.exec(tag[0]);
      if (href) urls.push(href[1]);
    }
    add(/url\(\s*["']?([^"')\s]+)/giu); // inline styles
  } else if (kind === 'css') {
    add(/url\(\s*["']?([^"')\s]+)/giu);
    add(/@import\s+["']([^"']+)/giu);
  } else {
    add(/\bimport\s*(?:[\w{}*,\s]+from\s*)?["']([^"']+)["']/gu);
    add(/\b(?:import|fetch|WebSocket|EventSource)\s*\(\s*["'`]([^"'`]+)["'`]/gu);
  }
  return urls;
}

const external = (urls) => urls.filter((u) => REMOTE.test(u) && !LOCAL.test(u));

test('the check sees external loads with and without a file extension', () => {
  const html = '<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Inter">' +
    '<script src="//cdn.example/lib"></script><a href="https://example.com/">a link</a>' +
    '<link rel="stylesheet" href="style.css"><img src="http://127.0.0.1:8080/x.png">';
  assert.deepEqual(external(loadedUrls(html, 'html')),
    ['//cdn.example/lib', 'https://fonts.googleapis.com/css2?family=Inter']);
  assert.deepEqual(external(loadedUrls('a{background:url(https://x.example/bg)}@import "https://y.example/f";', 'css')),
    ['https://x.example/bg', 'https://y.example/f']);
  assert.deepEqual(external(loadedUrls("import x from 'https://esm.example/x';fetch('https://api.example/v1')", 'js')),
    ['https://esm.example/x', 'https://api.example/v1']);
});

for (const path of ['/', '/admin']) {
  test(`GET ${path} is an HTML page that loads nothing from the internet, nor do its assets`, async () => {
    const r = await srv.get(path);
    assert.equal(r.status, 200);
    assert.match(r.headers['content-type'], /^text\/html/);
    assert.match(r.text, /<html|<!doctype html/i);
    assert.deepEqual(external(loadedUrls(r.text, 'html')), [], `${path} loads from the internet`);
    // Its own scripts and styles, and what they import, in turn.
    const seen = new Set();
    const queue = loadedUrls(r.text, 'html').filter((u) => !REMOTE.test(u)).map((u) => new URL(u, `${srv.base}${path}`));
    assert.ok(queue.length >= 2, `${path} has its script and style: ${queue}`);
    while (queue.length) {
      const url = queue.shift();
      if (seen.has(url.pathname)) continue;
      seen.add(url.pathname);
      const asset = await srv.get(url.pathname);
      assert.equal(asset.status, 200, `${url.pathname} (from ${path})`);
      const kind = url.pathname.endsWith('.css') ? 'css' : 'js';
      const urls = loadedUrls(asset.text, kind);
      assert.deepEqual(external(urls), [], `${url.pathname} loads from the internet`);
      if (kind === 'js') {
        for (const u of urls.filter((x) => x.startsWith('.'))) queue.push(new URL(u, url));
      }
    }
  });
}

// RFC 9110 9.3.2: a HEAD answer has the GET's headers and no body; body bytes after it would be
// read as the next response on a kept-alive connection.
test('HEAD of a page or file: the headers of its GET, Content-Length included, and no body', async () => {
  for (const path of ['/', '/style.css', '/missing.css']) {
    const get = await srv.get(path);
    const socket = await rawConnect(srv);
    let raw = '';
    socket.setEncoding('latin1');
    socket.on('data', (c) => { raw += c; });
    const closed = new Promise((resolve) => socket.on('close', resolve));
    socket.write(`HEAD ${path} HTTP/1.1\r\nHost: ${srv.host}:${srv.port}\r\nConnection: close\r\n\r\n`);
    await closed;
    const end = raw.indexOf('\r\n\r\n');
    assert.ok(end > 0, `HEAD ${path}: no header block in ${raw.slice(0, 200)}`);
    assert.equal(raw.slice(end + 4), '', `HEAD ${path}: body bytes after the headers`);
    const head = raw.slice(0, end + 2);  // each header line with its CRLF
    assert.match(head, new RegExp(`^HTTP/1\\.1 ${get.status} `, 'u'), `HEAD ${path}: status`);
    assert.match(head, new RegExp(`\r\nContent-Length: ${Buffer.byteLength(get.text)}\r\n`, 'iu'), `HEAD ${path}: Content-Length of the GET`);
    assert.match(head, new RegExp(`\r\nContent-Type: ${get.headers['content-type'].replace(/[.*+?^${}()|[\]\\]/gu, '\\$&')}\r\n`, 'iu'), `HEAD ${path}: Content-Type`);
  }
});

test('the admin page needs no token to load (it asks for one)', async () => {
  const r = await srv.get('/admin');
  assert.equal(r.status, 200);
});

// A browser asks every site for /favicon.ico: the storefront's visitors must not each log a 404.
test('/favicon.ico is an icon, embedded like the pages', async () => {
  const r = await fetch(`http://127.0.0.1:${srv.port}/favicon.ico`);
  assert.equal(r.status, 200);
  assert.equal(r.headers.get('content-type'), 'image/x-icon');
  const bytes = Buffer.from(await r.arrayBuffer());
  // ICONDIR: reserved 0, type 1 (icon), at least one image.
  assert.equal(bytes.readUInt16LE(0), 0);
  assert.equal(bytes.readUInt16LE(2), 1);
  assert.ok(bytes.readUInt16LE(4) >= 1, 'no image in the icon');
});

// docs/security.md, "Threat model: origins, hooks, pages, admin": a page says what it may load and
// that it may not be framed; no file may be sniffed into another type.
test('pages carry a CSP that allows only their own scripts, styles and connections, and no framing', async () => {
  for (const path of ['/', '/admin']) {
    const r = await srv.get(path);
    assert.equal(r.status, 200);
    const csp = r.headers['content-security-policy'] ?? '';
    const directives = Object.fromEntries(csp.split(';').map((d) => d.trim().split(/\s+/u)).map(([k, ...v]) => [k, v]));
    assert.deepEqual(directives['default-src'], ["'none'"], `${path}: ${csp}`);
    assert.deepEqual(directives['script-src'], ["'self'"], `${path}: ${csp}`);
    assert.deepEqual(directives['style-src'], ["'self'"], `${path}: ${csp}`);
    assert.deepEqual(directives['frame-ancestors'], ["'none'"], `${path}: ${csp}`);
    const host = `${srv.host}:${srv.port}`;
    assert.deepEqual(directives['connect-src'], ["'self'", `ws://${host}`, `wss://${host}`], `${path}: ${csp}`);
    assert.ok(!/unsafe-inline|unsafe-eval|\*/u.test(csp), `${path}: ${csp}`);
    assert.equal(r.headers['x-frame-options'], 'DENY', path);
    assert.equal(r.headers['x-content-type-options'], 'nosniff', path);
    assert.equal(r.headers['referrer-policy'], 'no-referrer', path);
    // The policy holds because the pages need nothing inline.
    assert.ok(!/<script(?![^>]*\bsrc=)[^>]*>|<style\b|\son[a-z]+\s*=|\sstyle\s*=/iu.test(r.text), `${path} has inline script or style`);
  }
  for (const path of ['/ringcast.js', '/style.css', '/admin.js']) {
    const r = await srv.get(path);
    assert.equal(r.status, 200, path);
    assert.equal(r.headers['x-content-type-options'], 'nosniff', path);
  }
});

test('--allowed-hosts: a request naming another Host gets 421 (DNS rebinding), /healthz answers any', async () => {
  const guarded = await startServer(['--allowed-hosts', 'localhost,127.0.0.1']);
  try {
    const rebound = { headers: { Host: `evil.example:${guarded.port}` } };
    for (const path of ['/', '/admin', '/metrics', '/poll?user=a', '/sse?user=a']) {
      const r = await guarded.get(path, rebound);
      assert.equal(r.status, 421, `${path}: ${r.status} ${r.text}`);
      assert.equal(r.json.error, 'host', path);
    }
    const stats = await guarded.admin('GET', '/admin/stats', { headers: rebound.headers });
    assert.equal(stats.status, 421);
    assert.equal((await guarded.get('/healthz', rebound)).status, 200);
    assert.equal((await guarded.stats()).refused.host, 6);
    // Its own names, whatever the port or case.
    assert.equal((await guarded.get('/', { headers: { Host: `LocalHost:${guarded.port}` } })).status, 200);
    assert.equal((await guarded.get('/')).status, 200);
    await guarded.wsHello({ user: 'a' });
    // Without the flag every name is answered, as before.
    assert.equal((await srv.get('/', rebound)).status, 200);
  } finally {
    await guarded.stop();
  }
});
