// Native TLS as an attacker would try it (issue 26; docs/security.md, "Native TLS" and "Threat
// model: identity, tokens, TLS"): TLS 1.2 only with ECDHE and AEAD ciphers in the server's order,
// no session tickets, Strict-Transport-Security on every reply over TLS, and --hook-ca "" refused.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import tls from 'node:tls';
import { runBinary, startServer, uid } from './harness.mjs';

let srv; // TLS with the default --hsts
before(async () => {
  srv = await startServer(['--threads', '1'], { tls: true });
});
after(async () => {
  await srv?.stop();
});

// The outcome of a handshake with these client options: { protocol, cipher } or { error }.
function handshake(options) {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: srv.host, port: srv.port, ca: srv.ca, ...options });
    socket.once('secureConnect', () => {
      const result = { protocol: socket.getProtocol(), cipher: socket.getCipher().name, socket };
      resolve(result);
    });
    socket.once('error', (error) => resolve({ error }));
  });
}

test('TLS 1.2 refuses CBC and SHA-1 suites and static RSA key exchange', async () => {
  for (const ciphers of ['ECDHE-ECDSA-AES128-SHA', 'ECDHE-ECDSA-AES256-SHA384', 'AES128-GCM-SHA256']) {
    const r = await handshake({ maxVersion: 'TLSv1.2', ciphers });
    r.socket?.destroy();
    assert.ok(r.error, `${ciphers} was accepted (${r.cipher})`);
  }
  const ok = await handshake({ maxVersion: 'TLSv1.2' });
  assert.equal(ok.protocol, 'TLSv1.2');
  assert.match(ok.cipher, /^ECDHE-ECDSA-(AES\d+-GCM-SHA\d+|CHACHA20-POLY1305)$/u);
  ok.socket.destroy();
});

test('the server picks the cipher in its own order, not the client\'s', async () => {
  const r = await handshake({
    maxVersion: 'TLSv1.2',
    ciphers: 'ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256',
  });
  assert.ifError(r.error);
  assert.equal(r.cipher, 'ECDHE-ECDSA-AES128-GCM-SHA256');
  r.socket.destroy();
});

// A request over one TLS connection: the reply and whether a session ticket (or TLS 1.3
// NewSessionTicket) came.
function getOver(options) {
  return new Promise((resolve, reject) => {
    let ticketed = false;
    let text = '';
    const socket = tls.connect({ host: srv.host, port: srv.port, ca: srv.ca, ...options }, () => {
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    });
    socket.on('session', () => { ticketed = true; });
    socket.setEncoding('utf8');
    socket.on('data', (c) => { text += c; });
    socket.on('end', () => resolve({ text, ticketed, ticket: socket.getTLSTicket() }));
    socket.on('error', reject);
  });
}

test('no session tickets: nothing a never-rotated ticket key could later open', async () => {
  const v12 = await getOver({ maxVersion: 'TLSv1.2' });
  assert.match(v12.text, /^HTTP\/1\.1 200/u);
  assert.equal(v12.ticket, undefined);
  const v13 = await getOver({ minVersion: 'TLSv1.3' });
  assert.match(v13.text, /^HTTP\/1\.1 200/u);
  assert.equal(v13.ticketed, false, 'a TLS 1.3 session ticket was sent');
});

test('Strict-Transport-Security on TLS replies (--hsts, default a year); not on plain HTTP; 0 = off', async () => {
  const year = 'max-age=31536000';
  assert.equal((await srv.get('/healthz')).headers['strict-transport-security'], year);
  assert.equal((await srv.get('/')).headers['strict-transport-security'], year);
  assert.equal((await srv.get('/nope')).headers['strict-transport-security'], year);
  const poll = await srv.poll({ user: uid('p'), since: 0 });
  assert.equal(poll.headers['strict-transport-security'], year);
  const sse = await srv.sse({ user: uid('s') });
  assert.equal(sse.headers['strict-transport-security'], year);
  sse.close();

  const hour = await startServer(['--hsts', '1h'], { tls: true });
  const off = await startServer(['--hsts', '0'], { tls: true });
  const plain = await startServer([]);
  try {
    assert.equal((await hour.get('/healthz')).headers['strict-transport-security'], 'max-age=3600');
    assert.equal((await off.get('/healthz')).headers['strict-transport-security'], undefined);
    assert.equal((await plain.get('/healthz')).headers['strict-transport-security'], undefined);
  } finally {
    await Promise.all([hour.stop(), off.stop(), plain.stop()]);
  }
});

test('--hook-ca "" is refused at start-up (exit 2, naming the flag), not read as "verify nothing"', async () => {
  const r = await runBinary(['--listen', '127.0.0.1:0', '--connect-hook', 'https://127.0.0.1:9/connect',
    '--hook-ca', ''], 3000);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /--hook-ca: /u);
});
