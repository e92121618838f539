// docs/operations.md, "Running", as written: the first lines of its block, up to scripts/run.sh
// (which is the built binary here, on a free port), run by bash. A newcomer who follows them must
// be shown the admin token they made, and it must sign in to the admin API.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BIN, freePort, waitFor } from './harness.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

function runningBlock() {
  const doc = readFileSync(path.join(here, '../../docs/operations.md'), 'utf8');
  const section = doc.slice(doc.indexOf('\n## Running\n'));
  const block = /```sh\n([\s\S]*?)```/u.exec(section)[1].split('\n');
  const upTo = block.findIndex((line) => line.startsWith('scripts/run.sh'));
  assert.ok(upTo >= 0, 'the Running block starts scripts/run.sh');
  return block.slice(0, upTo + 1);
}

test('the Running block shows the admin token it makes, and that token signs in', async () => {
  const port = await freePort();
  const lines = runningBlock().map((line) => line.replace(/^scripts\/run\.sh\b/u, `exec "${BIN}" --listen 127.0.0.1:${port} --drain 0`));
  const env = { ...process.env };
  delete env.RINGCAST_ADMIN_TOKEN;
  const shell = spawn('bash', ['-c', lines.join('\n')], { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  shell.stdout.setEncoding('utf8').on('data', (c) => { out += c; });
  shell.stderr.setEncoding('utf8').on('data', (c) => { out += c; });
  const exited = new Promise((resolve) => shell.on('exit', (code, signal) => resolve({ code, signal })));
  try {
    await waitFor(() => out.includes(`listening on 127.0.0.1:${port}`), 5000, `the server (${out})`);
    const shown = out.match(/\b[0-9a-f]{32}\b/gu) ?? [];
    assert.equal(shown.length, 1, `one token shown, in:\n${out}`);
    const publish = (token) => fetch(`http://127.0.0.1:${port}/admin/publish`, {
      method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: '{"data":"docs"}',
    });
    assert.equal((await publish('not-it')).status, 401);
    const r = await publish(shown[0]);
    assert.equal(r.status, 200, await r.text());
  } finally {
    shell.kill('SIGTERM');
  }
  assert.deepEqual(await exited, { code: 0, signal: null }, out);
});
