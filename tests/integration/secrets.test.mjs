// Secrets out of the command line (issue 26; docs/security.md, "Threat model: identity, tokens,
// TLS"; docs/operations.md): --hook-secret-file and --redis-password-file read them from files that
// `ps` does not show, and a secret or key file that its group or others may read is named in a
// warning at start-up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { BIN, freePort, makeCertificate, requireCommand, startServer, uid, waitFor } from './harness.mjs';

const dir = mkdtempSync(path.join(os.tmpdir(), 'ringcast-secrets-'));
function secretFile(name, text, mode = 0o600) {
  const file = path.join(dir, name);
  writeFileSync(file, `${text}\n`);
  chmodSync(file, mode);
  return file;
}
const commandLine = (pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ');

test('--hook-secret-file signs event batches with the file\'s secret, which ps does not show', async () => {
  const secret = `hook-${uid('s')}`;
  const bodies = [];
  const backend = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      bodies.push({ body: Buffer.concat(chunks).toString(), signature: req.headers['x-ringcast-signature'] });
      res.writeHead(200);
      res.end();
    });
  });
  await new Promise((r) => backend.listen(0, '127.0.0.1', r));
  const srv = await startServer(['--hook-url', `http://127.0.0.1:${backend.address().port}/events`,
    '--hook-secret-file', secretFile('hook-secret', secret), '--hook-flush', '50ms']);
  try {
    const c = await srv.wsHello({ user: uid('u') });
    await c.close();
    await waitFor(() => bodies.length > 0, 5000, 'a hook batch');
    for (const { body, signature } of bodies)
      assert.equal(signature, `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
    assert.ok(!commandLine(srv.proc.pid).includes(secret));
    assert.doesNotMatch(srv.log, /readable by group or others/u);
  } finally {
    await srv.stop();
    backend.closeAllConnections();
    backend.close();
  }
});

test('--redis-password-file: the Redis URL\'s password from a file', async () => {
  const password = `redis-${uid('p')}`;
  const port = await freePort();
  const redis = spawn(requireCommand('redis-server'), ['--port', String(port), '--bind', '127.0.0.1',
    '--save', '', '--appendonly', 'no', '--requirepass', password], { stdio: 'ignore' });
  const exited = new Promise((resolve) => redis.on('exit', resolve));
  try {
    await waitFor(() => new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    }), 5000, 'redis-server listening');
    const srv = await startServer(['--redis', `redis://127.0.0.1:${port}/0`,
      '--redis-password-file', secretFile('redis-password', password)]);
    try {
      const c = await srv.wsHello({ user: uid('r') });
      const { id } = await srv.publish({ data: 'through redis' });
      assert.equal((await c.next((m) => m.type === 'message', 5000)).id, id);
      assert.ok(!commandLine(srv.proc.pid).includes(password));
    } finally {
      await srv.stop();
    }
  } finally {
    redis.kill('SIGTERM');
    await exited;
  }
});

// What the server logs until it listens (then it is stopped).
function startupLog(args) {
  return new Promise((resolve, reject) => {
    const p = spawn(BIN, ['--listen', '127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    const timer = setTimeout(() => { p.kill('SIGKILL'); reject(new Error(`not listening: ${log}`)); }, 5000);
    const onData = (chunk) => {
      log += chunk;
      if (/listening on/u.test(log)) p.kill('SIGTERM');
    };
    p.stdout.setEncoding('utf8').on('data', onData);
    p.stderr.setEncoding('utf8').on('data', onData);
    p.on('exit', () => { clearTimeout(timer); resolve(log); });
  });
}

test('a secret or key file readable by group or others is named in a warning at start-up', async () => {
  const { certFile, keyFile } = makeCertificate();
  const token = secretFile('admin-token', 'an-admin-token-in-a-file');
  chmodSync(keyFile, 0o600);
  const quiet = await startupLog(['--admin-token-file', token, '--tls-cert', certFile, '--tls-key', keyFile]);
  assert.doesNotMatch(quiet, /readable by group or others/u);

  // The server's own group may read them (the package installs its token root:ringcast 0640).
  chmodSync(token, 0o640);
  chmodSync(keyFile, 0o640);
  const grouped = await startupLog(['--admin-token-file', token, '--tls-cert', certFile, '--tls-key', keyFile]);
  assert.doesNotMatch(grouped, /readable by group or others/u);

  chmodSync(token, 0o604);
  chmodSync(keyFile, 0o644);
  const warned = await startupLog(['--admin-token-file', token, '--tls-cert', certFile, '--tls-key', keyFile]);
  assert.match(warned, new RegExp(`--admin-token-file: ${token} is readable by group or others \\(mode 0604\\)`, 'u'));
  assert.match(warned, new RegExp(`--tls-key: ${keyFile} is readable by group or others \\(mode 0644\\)`, 'u'));
  rmSync(dir, { recursive: true, force: true });
});
