// Prints the size of the browser build, minified and gzipped (`npm run size`; docs/client.md):
// web/ringcast.js as served, and the same source built without the shared-tab connection
// (src/shared.ts replaced by "never share"), so the cost of sharing is its own line.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const gzipped = (text) => gzipSync(text, { level: 9 }).length;
const minify = async (options) => (await esbuild.build({
  absWorkingDir: here, bundle: true, minify: true, write: false, format: 'iife', target: 'es2022',
  define: { WEB_BUILD: 'true' }, logLevel: 'warning', ...options,
})).outputFiles[0].text;

const served = readFileSync(join(here, '../../web/ringcast.js'), 'utf8');
const full = await minify({ stdin: { contents: served, loader: 'js' } });
const unshared = await minify({
  entryPoints: [join(here, 'src/web/script.ts')],
  plugins: [{
    name: 'never-share',
    setup(build) {
      build.onResolve({ filter: /\/shared\.js$/ }, () => ({ path: 'never-share', namespace: 'never-share' }));
      build.onLoad({ filter: /.*/, namespace: 'never-share' },
        () => ({ contents: 'export const canShare = () => false; export class TabGroup {}', loader: 'js' }));
    },
  }],
});
console.log(`web/ringcast.js minified: ${full.length} bytes, gzipped: ${gzipped(full)} bytes`);
console.log(`without the shared-tab connection: ${unshared.length} bytes, gzipped: ${gzipped(unshared)} bytes`);
