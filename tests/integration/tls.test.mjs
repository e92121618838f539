// Native TLS (--tls-cert/--tls-key): HTTPS, WSS and SSE over TLS on one port, with a self-signed
// certificate made by this test; plaintext on the TLS port; the handshake timeout; bad flags.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import {
  assertOnTime, makeCertificate, rawConnect, runBinary, startServer, uid, waitFor,
} from './harness.mjs';

describe('--tls-cert --tls-key, two threads', () => {
  let srv;
  // Two loops, so that most connections are handed to their session's home loop after the
  // request was read over TLS: the TLS state must follow the socket there.
  before(async () => {
    srv = await startServer(['--threads', '2', '--handshake-timeout', '1', '--poll-timeout', '2'],
      { tls: true });
  });
  after(async () => { await srv?.stop(); });

  test('a WSS client gets hello and pushes, and resumes with since on a new connection', async () => {
    for (let i = 0; i < 4; i++) {  // users land on both loops
      const user = uid(`wss${i}`);
      const a = await srv.wsHello({ user });
      const { id: first } = await srv.publish({ user, data: { n: 1 } });
      assert.equal((await a.next('message')).id, first);
      await a.close();
      const { id: missed } = await srv.publish({ user, data: { n: 2 } });
      const b = await srv.wsHello({ user, since: first });
      assert.equal(b.hello.resumed, true);
      const m = await b.next('message');
      assert.deepEqual([m.id, m.data], [missed, { n: 2 }]);
      await b.close();
    }
  });

  test('an HTTPS long-poll is held, answered by a publish, and times out with reconnect', async () => {
    for (let i = 0; i < 4; i++) {
      const user = uid(`lp${i}`);
      const held = srv.poll({ user });
      await srv.statsUntil((s) => s.connections.poll >= 1, 3000, 'the poll held');
      const { id } = await srv.publish({ user, data: { poll: i } });
      const r = await held;
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json.messages.map((m) => [m.id, m.data.poll]), [[id, i]]);
    }
    const quiet = await srv.poll({ user: uid('quiet') });
    assert.equal(quiet.json.type, 'reconnect');
    assert.equal(quiet.json.reason, 'timeout');
  });

  test('SSE over HTTPS streams hello and messages, one over 16 KiB (several TLS records) intact', async () => {
    const user = uid('sse');
    const c = await srv.sseHello({ user });
    const big = 'x'.repeat(40 * 1024);
    const { id } = await srv.publish({ user, data: { big } });
    const ev = await c.next('message');
    assert.equal(ev.id, String(id));
    assert.equal(ev.json.data.big, big);
    const w = await srv.wsHello({ user, since: 0 });
    assert.equal((await w.next('message')).data.big, big);
    c.close();
    await w.close();
  });

  test('a client that hangs up on a held HTTPS poll frees it at once, not at the poll timeout', async () => {
    for (const how of ['close_notify', 'bare FIN']) {
      const user = uid('gone');
      const socket = tls.connect({ host: srv.host, port: srv.port, ca: srv.ca });
      await new Promise((resolve, reject) => { socket.once('secureConnect', resolve); socket.once('error', reject); });
      socket.on('error', () => {});
      socket.write(`GET /poll?user=${user} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      await srv.statsUntil((s) => s.connections.poll === 1, 3000, 'the poll held');
      const t0 = Date.now();
      if (how === 'close_notify') socket.end(); else socket.destroy();
      await srv.statsUntil((s) => s.connections.poll === 0, 1500, `the poll released after ${how}`);
      assert.ok(Date.now() - t0 < 1500);
    }
  });

  test('plain HTTP on the TLS port gets a 400 in plain HTTP, and the server keeps serving', async () => {
    const s0 = await srv.stats();
    const socket = await rawConnect(srv);
    let reply = '';
    socket.setEncoding('utf8');
    socket.on('data', (c) => { reply += c; });
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    await new Promise((resolve) => socket.on('close', resolve));
    assert.match(reply, /^HTTP\/1\.1 400 /u);
    assert.match(reply, /Connection: close/iu);
    const body = JSON.parse(reply.slice(reply.indexOf('\r\n\r\n') + 4));
    assert.equal(body.error, 'bad_request');
    assert.match(body.message, /TLS/u);
    const s1 = await srv.stats();
    assert.equal(s1.expirations.tls_failed, s0.expirations.tls_failed + 1);
    assert.equal((await srv.get('/healthz')).status, 200);
  });

  test('the TLS handshake counts against --handshake-timeout', async () => {
    const s0 = await srv.stats();
    const t0 = Date.now();
    const silent = await rawConnect(srv);
    const partial = await rawConnect(srv);
    partial.write(Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00]));  // a ClientHello record header only
    const closedAfter = (s) => new Promise((resolve) => {
      s.on('data', () => {});
      s.on('error', () => {});
      s.on('close', () => resolve(Date.now() - t0));
    });
    const [dtSilent, dtPartial] = await Promise.all([closedAfter(silent), closedAfter(partial)]);
    assertOnTime(srv, dtSilent, 1000, 'silent TLS connection closed');
    assertOnTime(srv, dtPartial, 1000, 'half a ClientHello closed');
    const s1 = await srv.stats();
    assert.equal(s1.expirations.handshake, s0.expirations.handshake + 1, JSON.stringify(s1.expirations));
    assert.equal(s1.expirations.unused, s0.expirations.unused + 1, JSON.stringify(s1.expirations));
    assert.equal(s1.expirations.tls_failed, s0.expirations.tls_failed, JSON.stringify(s1.expirations));
  });

  test('a connection closed before its first byte (a browser\'s spare connection) counts as unused, not tls_failed', async () => {
    const s0 = await srv.stats();
    const spare = await rawConnect(srv);
    spare.end();
    await srv.statsUntil((s) => s.expirations.unused === s0.expirations.unused + 1, 3000, 'counted as unused');
    const s1 = await srv.stats();
    assert.equal(s1.expirations.tls_failed, s0.expirations.tls_failed, JSON.stringify(s1.expirations));
    assert.equal(s1.expirations.handshake, s0.expirations.handshake, JSON.stringify(s1.expirations));
  });

  test('a client that fails the handshake (it does not trust the certificate) leaves no trace', async () => {
    const s0 = await srv.stats();
    const socket = tls.connect({ host: srv.host, port: srv.port });  // no ca: verification fails
    const err = await new Promise((resolve) => socket.once('error', resolve));
    assert.match(err.code, /SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO/u);
    await srv.statsUntil((s) => s.expirations.tls_failed === s0.expirations.tls_failed + 1, 3000,
      'the failed handshake counted');
    assert.equal((await srv.get('/healthz')).status, 200);
  });
});

// The SHA-256 fingerprint of the certificate a TLS server presents (trusting `ca`).
async function servedFingerprint(srv, ca) {
  const socket = tls.connect({ host: srv.host, port: srv.port, ca });
  await new Promise((resolve, reject) => { socket.once('secureConnect', resolve); socket.once('error', reject); });
  const { fingerprint256 } = socket.getPeerCertificate();
  socket.destroy();
  return fingerprint256;
}

describe('SIGHUP', () => {
  test('reloads the certificate for new connections; open ones go on; a bad file keeps the old one', async () => {
    const srv = await startServer([], { tls: true });
    try {
      const first = srv.certificate;
      assert.equal(await servedFingerprint(srv, first.cert), new X509Certificate(first.cert).fingerprint256);
      const user = uid('renew');
      const open = await srv.wsHello({ user });

      const renewed = makeCertificate();
      copyFileSync(renewed.certFile, first.certFile);
      copyFileSync(renewed.keyFile, first.keyFile);
      srv.proc.kill('SIGHUP');
      await waitFor(() => /certificate reloaded/u.test(srv.log), 3000, 'the reload log line');
      srv.ca = renewed.cert;  // every later request of the harness trusts the new certificate
      assert.equal(await servedFingerprint(srv, renewed.cert), new X509Certificate(renewed.cert).fingerprint256);
      const { id } = await srv.publish({ user, data: 'after the renewal' });
      assert.equal((await open.next('message')).id, id, 'a connection opened before the reload');

      writeFileSync(first.keyFile, 'not a key');
      srv.proc.kill('SIGHUP');
      await waitFor(() => /keeping the current certificate/u.test(srv.log), 3000, 'the refusal log line');
      assert.equal(await servedFingerprint(srv, renewed.cert), new X509Certificate(renewed.cert).fingerprint256);
      assert.equal((await srv.get('/healthz')).status, 200);
    } finally {
      await srv.stop();
    }
  });

  // One handler reads both: the settings first (their lines), then the certificate.
  test('with --config reads the settings and the certificate again, in that order', async () => {
    const conf = path.join(mkdtempSync(path.join(os.tmpdir(), 'ringcast-tls-conf-')), 'tls.conf');
    writeFileSync(conf, 'max-body = 40\n');
    const srv = await startServer(['--config', conf], { tls: true, tokenVia: 'env' });
    try {
      writeFileSync(conf, 'max-body = 1000\n');
      srv.proc.kill('SIGHUP');
      await waitFor(() => /certificate reloaded/u.test(srv.log), 3000, 'the certificate line');
      const applied = srv.log.indexOf("SIGHUP: 'max-body' changed: applied");
      assert.ok(applied >= 0, 'the settings line');
      assert.ok(applied < srv.log.indexOf('certificate reloaded'), 'settings before the certificate');
      assert.doesNotMatch(srv.log, /nothing to reload/u);
      const big = { data: { text: 'x'.repeat(60) } };
      assert.equal((await srv.admin('POST', '/admin/publish', { body: big })).status, 200);
    } finally {
      await srv.stop();
    }
  });

  test('is harmless without TLS: the server logs it and goes on', async () => {
    const srv = await startServer([]);
    try {
      srv.proc.kill('SIGHUP');
      await waitFor(() => /SIGHUP: nothing to reload/u.test(srv.log), 3000, 'the log line');
      assert.equal((await srv.get('/healthz')).status, 200);
    } finally {
      await srv.stop();
    }
  });
});

describe('TLS flags', () => {
  test('--tls-cert needs --tls-key, and unreadable, encrypted or mismatched files exit 2 naming the file', async () => {
    const a = makeCertificate();
    const b = makeCertificate();
    // A key with a passphrase must be refused, not prompted for (a server has no one to ask).
    const encrypted = a.keyFile.replace(/key\.pem$/u, 'encrypted.pem');
    execFileSync('openssl', ['pkey', '-in', a.keyFile, '-aes256', '-passout', 'pass:secret',
      '-out', encrypted], { stdio: 'pipe' });
    // A DER certificate and a key file that holds something else: "not PEM", not OpenSSL's
    // "no start line; PEM lib".
    const der = a.certFile.replace(/cert\.pem$/u, 'cert.der');
    execFileSync('openssl', ['x509', '-in', a.certFile, '-outform', 'der', '-out', der], { stdio: 'pipe' });
    const notKey = a.keyFile.replace(/key\.pem$/u, 'notes.txt');
    writeFileSync(notKey, 'not a key\n');
    const cases = [
      [['--tls-cert', der, '--tls-key', a.keyFile], /cert\.der: not a PEM certificate \(no "-----BEGIN" line; a DER file converts with openssl x509 -inform der/u],
      [['--tls-cert', a.certFile, '--tls-key', notKey], /notes\.txt: not a PEM private key/u],
      [['--tls-cert', a.certFile, '--tls-key', encrypted], /encrypted\.pem: the key is encrypted/u],
      [['--tls-cert', a.certFile], /--tls-cert: needs --tls-cert and --tls-key both/u],
      [['--tls-key', a.keyFile], /--tls-key: needs --tls-cert and --tls-key both/u],
      [['--tls-cert', '/nonexistent/cert.pem', '--tls-key', a.keyFile], /\/nonexistent\/cert\.pem/u],
      [['--tls-cert', a.certFile, '--tls-key', a.certFile], new RegExp(a.certFile.replace(/[.]/gu, '\\.'), 'u')],
      [['--tls-cert', a.certFile, '--tls-key', b.keyFile], /--tls-cert\/--tls-key: .*key\.pem is not the key of the certificate in/u],
    ];
    for (const [args, message] of cases) {
      const r = await runBinary(['--listen', '127.0.0.1:0', ...args]);
      assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}; ${r.err}`);
      assert.match(r.err, message);
    }
  });
});
