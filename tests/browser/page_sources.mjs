// The README's screenshots (docs/img/<name>.png) must show the current pages. Each is written by
// the browser tests with RINGCAST_UPDATE_SCREENSHOTS=1 together with docs/img/<name>.sources: a
// SHA-256 over every file of web/ (names and contents; the pages share style.css and the client)
// as it was when the picture was taken. screenshots_current.test.mjs fails when web/ changed and
// the pictures were not taken again.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export const WEB_DIR = new URL('../../web/', import.meta.url).pathname;
export const SCREENSHOTS = ['storefront', 'admin'];

export function pageSourcesHash() {
  const hash = createHash('sha256');
  for (const name of readdirSync(WEB_DIR).sort()) {
    hash.update(`${name}\0`);
    hash.update(readFileSync(join(WEB_DIR, name)));
    hash.update('\0');
  }
  return hash.digest('hex');
}
