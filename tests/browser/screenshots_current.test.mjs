// The README's screenshots were taken of the pages as they are now (page_sources.mjs): after a
// change to web/, run the browser tests with RINGCAST_UPDATE_SCREENSHOTS=1 and commit docs/img/.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { DOCS_IMG_DIR } from './support.mjs';
import { SCREENSHOTS, pageSourcesHash } from './page_sources.mjs';

test('every README screenshot was taken of the current web/', () => {
  const now = pageSourcesHash();
  for (const name of SCREENSHOTS) {
    const recorded = `${DOCS_IMG_DIR}${name}.sources`;
    assert.ok(existsSync(`${DOCS_IMG_DIR}${name}.png`), `docs/img/${name}.png is missing`);
    assert.ok(existsSync(recorded), `docs/img/${name}.sources is missing: take the screenshots with RINGCAST_UPDATE_SCREENSHOTS=1`);
    assert.equal(readFileSync(recorded, 'utf8').trim(), now,
      `web/ changed since docs/img/${name}.png was taken: run the browser tests with RINGCAST_UPDATE_SCREENSHOTS=1 (tests/browser/README.md) and commit docs/img/`);
  }
});
