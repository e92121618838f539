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

test('SIGHUP reads the file again and names what needs a restart', async () => {
  const conf = file('reload.conf', 'max-queue = 100\n');
  const srv = await startServer(['--config', conf]);
  try {
    srv.proc.kill('SIGHUP');
    await waitFor(() => srv.log.includes('SIGHUP: settings read again: nothing changed'), 3000, 'reload line');
    writeFileSync(conf, 'max-queue = 200\n');
    srv.proc.kill('SIGHUP');
    await waitFor(() => srv.log.includes("SIGHUP: 'max-queue' changed but cannot change while running"), 3000, 'change line');
    writeFileSync(conf, 'max-queue = 200\nnot a setting\n');
    srv.proc.kill('SIGHUP');
    await waitFor(() => srv.log.includes(`SIGHUP: ${conf}:2: expected name = value, got 'not a setting'; the running settings stay`), 3000, 'error line');
    // Still serving.
    await srv.publish({ data: { after: 'reload' } });
  } finally {
    await srv.stop();
  }
});
