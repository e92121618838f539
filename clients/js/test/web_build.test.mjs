// The server's /ringcast.js and /ringcast.mjs (web/, embedded in the binary) are this package's
// build: one client. A change to src/ without `npm run build` (and its web/ files committed) fails.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const WEB_DIR = fileURLToPath(new URL('../../../web/', import.meta.url));

test('web/ringcast.js and web/ringcast.mjs are a fresh build of clients/js', () => {
  const out = mkdtempSync(join(tmpdir(), 'ringcast-web-build-'));
  try {
    execFileSync(process.execPath, [join(PACKAGE_DIR, 'build.mjs'), '--web-out', out], { stdio: 'pipe' });
    for (const name of ['ringcast.js', 'ringcast.mjs']) {
      assert.ok(readFileSync(join(out, name)).equals(readFileSync(join(WEB_DIR, name))),
        `web/${name} differs from a fresh build of clients/js: run \`npm run build\` in clients/js and commit web/`);
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
