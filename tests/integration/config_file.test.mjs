// --config FILE against the real binary: the file's settings apply, flags override them, a bad
// file exits 2 naming its line, the admin token can come from a file, and SIGHUP reads the file
// again and says what it cannot change while running (docs/operations.md#config-file).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runBinary, startServer, waitFor } from './harness.mjs';

const dir = mkdtempSync(path.join(os.tmpdir(), 'ringcast-config-'));
function file(name, text) {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
}

test('settings in the file apply; a flag overrides the file', async () => {
  const conf = file('limits.conf', '# a small body limit\nmax-body = 40\n');
  const srv = await startServer(['--config', conf]);
  try {
    const big = { data: { text: 'x'.repeat(60) } };
    assert.equal((await srv.admin('POST', '/admin/publish', { body: big })).status, 413);
    assert.equal((await srv.admin('POST', '/admin/publish', { body: { data: 1 } })).status, 200);
  } finally {
    await srv.stop();
  }
  const over = await startServer(['--config', conf, '--max-body', '1000']);
  try {
    await over.publish({ data: { text: 'x'.repeat(60) } });
  } finally {
    await over.stop();
  }
});

test('the admin token from admin-token-file in the file', async () => {
  const token = file('admin-token', 'from-a-file-1234\n');
  const conf = file('token.conf', `admin-token-file = ${token}\n`);
  // The harness gives --admin-token on the command line; run it without through env: tokenVia
  // 'env' sets RINGCAST_ADMIN_TOKEN, which the file's admin-token-file takes precedence over.
  const srv = await startServer(['--config', conf], { tokenVia: 'env' });
  try {
    assert.equal((await srv.admin('POST', '/admin/publish', { body: { data: 1 } })).status, 401);
    const r = await srv.admin('POST', '/admin/publish', { body: { data: 1 }, token: 'from-a-file-1234' });
    assert.equal(r.status, 200, r.text);
  } finally {
    await srv.stop();
  }
});

test('a file that sets nothing (empty, or comments only) exits 2 at start and in --check-config, saying so', async () => {
  for (const [name, text] of [['empty.conf', ''], ['comments.conf', '# listen = 127.0.0.1:8080\n\n']]) {
    const conf = file(name, text);
    for (const extra of [['--check-config'], ['--listen', '127.0.0.1:0']]) {
      const r = await runBinary(['--config', conf, ...extra]);
      assert.equal(r.code, 2, `${name} ${extra}: ${r.err}`);
      assert.equal(r.err, `ringcast: ${conf}: sets nothing (no 'name = value' line); write the settings in it, or leave out --config\n`);
    }
  }
});

test('a bad value or an unknown name exits 2 naming the file and the line', async () => {
  const bad = file('bad.conf', 'heartbeat = 30s\n\nmax-queue = lots\n');
  let r = await runBinary(['--config', bad]);
  assert.equal(r.code, 2, r.err);
  assert.equal(r.err, `ringcast: ${bad}:3: max-queue: expected a whole number of at least 1, got 'lots'\n`);
  const unknown = file('unknown.conf', 'hearbeat = 30s\n');
  r = await runBinary(['--config', unknown]);
  assert.equal(r.code, 2, r.err);
  assert.equal(r.err, `ringcast: ${unknown}:1: unknown setting 'hearbeat'\n`);
});

test('SIGHUP reads the file again, applies the live settings and names what needs a restart', async () => {
  const conf = file('reload.conf', 'max-body = 40\nhistory = 100\n');
  // The token through the environment: a flag would override the file's admin-token.
  const srv = await startServer(['--config', conf], { tokenVia: 'env' });
  const big = { data: { text: 'x'.repeat(60) } };
  try {
    srv.proc.kill('SIGHUP');
    await waitFor(() => srv.log.includes('SIGHUP: settings read again: nothing changed'), 3000, 'reload line');
    assert.equal((await srv.admin('POST', '/admin/publish', { body: big })).status, 413);

    writeFileSync(conf, 'max-body = 1000\nhistory = 200\nadmin-token = rotated-token-1\n');
    srv.proc.kill('SIGHUP');
    await waitFor(() => srv.log.includes("SIGHUP: 'max-body' changed: applied"), 3000, 'applied line');
    await waitFor(() => srv.log.includes("SIGHUP: 'history' changed but cannot change while running"), 3000, 'restart line');
    await waitFor(() => srv.log.includes("SIGHUP: 'admin-token' changed: applied"), 3000, 'token line');
    assert.doesNotMatch(srv.log, /rotated-token-1/u, 'the token itself is not logged');
    // The new limit and the new token hold on the connections from now on; the old token is refused.
    await waitFor(async () => (await srv.admin('POST', '/admin/publish', { body: big, token: 'rotated-token-1' })).status === 200,
      3000, 'publish with the new token and the new limit');
    assert.equal((await srv.admin('POST', '/admin/publish', { body: { data: 1 } })).status, 401);

    writeFileSync(conf, 'max-body = 1000\nnot a setting\n');
    srv.proc.kill('SIGHUP');
    await waitFor(() => srv.log.includes(`SIGHUP: ${conf}:2: expected name = value, got 'not a setting'; the running settings stay`), 3000, 'error line');
    // Without --tls-cert, the certificate's reload has nothing to say when the settings reload did.
    assert.doesNotMatch(srv.log, /nothing to reload/u);
    // Still serving, with the settings applied before.
    const r = await srv.admin('POST', '/admin/publish', { body: big, token: 'rotated-token-1' });
    assert.equal(r.status, 200, r.text);
  } finally {
    await srv.stop();
  }
});
