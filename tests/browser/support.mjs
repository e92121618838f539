// Shared by the browser suites: start a server, start Chromium, talk to the admin API.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { assertCleanExit } from '../common/server_exit.mjs';
import { startFakeServer } from './fake_server.mjs';
import { pageSourcesHash } from './page_sources.mjs';

// The binary under test: $RINGCAST_BIN (CTest sets it), else this checkout's build.
export const SERVER_BIN = process.env.RINGCAST_BIN
  || fileURLToPath(new URL('../../build/server/ringcast', import.meta.url));
// RINGCAST_FAKE=1: the page suites run against the stand-in (fake_server.mjs) instead, for a
// developer's own run without a C++ build. Never in CTest or test.sh, which refuse or unset it.
export const USE_FAKE = process.env.RINGCAST_FAKE === '1';
export const OUTPUT_DIR = new URL('../output/', import.meta.url).pathname;
export const DOCS_IMG_DIR = new URL('../../docs/img/', import.meta.url).pathname;

/** For the suites the stand-in cannot run (node:test's `skip` option): only with RINGCAST_FAKE=1. */
export const fakeSkip = (why) => (USE_FAKE ? `RINGCAST_FAKE=1: ${why}` : undefined);

/**
 * Starts the server on a free loopback port with a random admin token. Resolves to
 * { url, token, publish, kick, stats, stop }. With `tls` it serves HTTPS/WSS with a self-signed
 * certificate made here (the admin calls trust it; a browser needs ignoreHTTPSErrors).
 */
export async function startServer(extraArgs = [], { tls = false } = {}) {
  const server = USE_FAKE ? await startFakeServer() : await spawnServer(extraArgs, tls);
  return { ...server, ...adminApi(server.url, server.token, server.ca) };
}

// A self-signed certificate for 127.0.0.1 by the openssl command line: { certFile, keyFile, ca }.
function makeCertificate() {
  const dir = mkdtempSync(join(tmpdir(), 'ringcast-browser-tls-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync('openssl', ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
    '-nodes', '-days', '1', '-subj', '/CN=ringcast browser test', '-keyout', keyFile,
    '-out', certFile, '-addext', 'subjectAltName=IP:127.0.0.1'], { stdio: 'pipe' });
  return { certFile, keyFile, ca: readFileSync(certFile, 'utf8') };
}

async function spawnServer(extraArgs, tls) {
  if (!existsSync(SERVER_BIN)) {
    throw new Error(`no server binary at ${SERVER_BIN}: build it, or set RINGCAST_BIN ` +
      '(RINGCAST_FAKE=1 runs the page suites against the stand-in instead)');
  }
  const token = randomBytes(16).toString('hex');
  const certificate = tls ? makeCertificate() : null;
  const args = ['--listen', '127.0.0.1:0', '--admin-token', token, ...extraArgs];
  if (certificate) args.push('--tls-cert', certificate.certFile, '--tls-key', certificate.keyFile);
  // RINGCAST_WEB_ROOT=web serves the pages from disk: test edits to web/ without rebuilding.
  if (process.env.RINGCAST_WEB_ROOT) args.push('--web-root', process.env.RINGCAST_WEB_ROOT);
  const child = spawn(SERVER_BIN, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const outputClosed = new Promise((resolve) => { child.on('close', resolve); });
  const exited = new Promise((resolve) => {
    child.on('exit', (code, signal) => resolve({ code, signal }));
  });
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not report its port:\n${log}`)), 10000);
    const onData = (chunk) => {
      log += chunk;
      const match = /listening on (\S+):(\d+)/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve(`${tls ? 'https' : 'http'}://${match[1]}:${match[2]}`);
      }
    };
    // The contract is a line on stderr; reading stdout as well costs nothing.
    child.stderr.on('data', onData);
    child.stdout.on('data', onData);
    exited.then(({ code, signal }) => reject(new Error(`server exited (${code ?? signal}) before listening:\n${log}`)));
  });
  let stopped;
  return {
    url,
    token,
    ca: certificate?.ca,
    log: () => log,
    // SIGTERM, then the exit must be clean: status 0 within the drain (5 s by default) and a few
    // seconds more, and no sanitizer report in the log. Rejects otherwise.
    stop: () => {
      stopped ??= (async () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
        let killed = false;
        const killer = setTimeout(() => { killed = true; child.kill('SIGKILL'); }, 8000);
        const status = await exited;
        clearTimeout(killer);
        await Promise.race([outputClosed, new Promise((r) => { setTimeout(r, 2000).unref(); })]);
        assertCleanExit(status, log, { killed });
      })();
      return stopped;
    },
  };
}

// node:http(s) rather than fetch, so that a test certificate can be trusted for this call only.
function adminApi(url, token, ca) {
  const call = (method, path, body) => new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const target = new URL(path, url);
    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method,
      ca,
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => { text += chunk; });
      response.on('end', () => {
        const json = JSON.parse(text);
        if (response.statusCode >= 300) {
          reject(new Error(`${method} ${path}: ${response.statusCode} ${JSON.stringify(json)}`));
        } else {
          resolve(json);
        }
      });
    });
    request.on('error', reject);
    request.end(payload);
  });
  return {
    publish: (body) => call('POST', '/admin/publish', body),
    kick: (user) => call('POST', '/admin/kick', { user }),
    stats: () => call('GET', '/admin/stats'),
    get: (path) => call('GET', path),
  };
}

/**
 * Headless Chromium with a fresh profile. Resolves to { context, close }. ignoreHTTPSErrors: for a
 * server with a self-signed certificate.
 */
export async function launchBrowser({ ignoreHTTPSErrors = false } = {}) {
  const profile = await mkdtemp(join(tmpdir(), 'ringcast-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    ignoreHTTPSErrors,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}

/** Opens the storefront as `user` and waits until its client is connected. */
export async function openStore(context, url, { user, transport = 'auto', channels }) {
  const page = await context.newPage();
  // The page's WebSockets, newest last, for wsRoundTrip.
  page.sockets = [];
  page.on('websocket', (ws) => page.sockets.push(ws));
  // Every HTTP request the page made, with its status, for tests of what the page asks for.
  page.requestLog = [];
  page.on('response', (r) => page.requestLog.push({ method: r.request().method(), url: r.url(), status: r.status() }));
  const query = new URLSearchParams({ user, transport });
  if (channels) query.set('channels', channels.join(','));
  await page.goto(`${url}/?${query}`);
  await page.locator('#status[data-state="open"]').waitFor({ timeout: 15000 });
  return page;
}

/**
 * A ping/pong round trip on the storefront client's own WebSocket: the server answers a ping only
 * after it has read everything the client sent before it (a subscribe or unsubscribe, say).
 */
export async function wsRoundTrip(page) {
  const ws = page.sockets.at(-1);
  if (!ws) throw new Error('the page has no WebSocket');
  const pong = ws.waitForEvent('framereceived', {
    predicate: (frame) => /"type":"pong"/.test(String(frame.payload)),
    timeout: 5000,
  });
  // The client's own connection (clients/js/src/client.ts): its link is the Connection, or the
  // tab group whose leader holds one; only the tab with the WebSocket can send on it.
  await page.evaluate(() => {
    const { link } = window.ringcast;
    (link.connection ?? link).send({ type: 'ping' });
  });
  await pong;
}

/**
 * Writes tests/output/<name>.png. With RINGCAST_UPDATE_SCREENSHOTS=1 (and the real server) it is
 * also copied to docs/img/ for the README, with <name>.sources (page_sources.mjs), so an ordinary
 * test run leaves the tree clean.
 */
export async function screenshot(page, name) {
  await mkdir(OUTPUT_DIR, { recursive: true });
  const file = join(OUTPUT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  if (USE_FAKE || process.env.RINGCAST_UPDATE_SCREENSHOTS !== '1') return;
  await mkdir(DOCS_IMG_DIR, { recursive: true });
  await copyFile(file, join(DOCS_IMG_DIR, `${name}.png`));
  // What the picture shows, for screenshots_current.test.mjs (page_sources.mjs).
  await writeFile(join(DOCS_IMG_DIR, `${name}.sources`), `${pageSourcesHash()}\n`);
}

export const uniqueUser = (prefix) => `${prefix}-${randomBytes(4).toString('hex')}`;
