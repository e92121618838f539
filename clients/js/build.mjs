// Builds the package from src/ with esbuild (JavaScript) and tsc (declarations):
//   dist/<entry>.mjs, dist/<entry>.cjs   one pair per subpath of package.json "exports"
//                                        ("." is src/index.ts, "./<name>" is src/<name>/index.ts)
//   dist/**/*.d.ts                      declarations of every public type
//   ../../web/ringcast.js, ringcast.mjs the files the server embeds and serves (a classic script,
//                                        and an ES module that imports it), so the server's client
//                                        is this package
// `node build.mjs --web-out DIR` writes the two web files into DIR instead (and builds nothing
// else): test/web_build.test.mjs compares them with the committed ones. `--package` builds dist/
// only (npm pack's prepack: packing never rewrites the repository's web/).
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as esbuild from 'esbuild';

const here = dirname(fileURLToPath(import.meta.url));
const pkg = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8'));
const webOutIndex = process.argv.indexOf('--web-out');
const webOut = webOutIndex > 0 ? process.argv[webOutIndex + 1] : join(here, '../../web');
// The web files name their source; the browser versions the package supports.
const WEB_BANNER = '// Built from clients/js/src by clients/js/build.mjs (ringcast-client ' +
  `${pkg.version}): do not edit, edit the package. See docs/client.md.`;
const TARGET = ['es2022', 'chrome100', 'firefox100', 'safari15.4'];

// A subpath entry imports the core as '../index.js': it stays a reference to the core bundle of
// the same format, so `ringcast-client/react` and `ringcast-client` share one RingcastClient.
const coreAsExternal = (format) => ({
  name: 'core-as-external',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/index\.js$/ }, () => ({
      path: format === 'esm' ? './index.mjs' : './index.cjs',
      external: true,
    }));
  },
});

async function buildWeb() {
  // absWorkingDir: the paths in the output's comments do not depend on where the build runs.
  const common = {
    absWorkingDir: here, bundle: true, target: TARGET, banner: { js: WEB_BANNER }, logLevel: 'warning',
    define: { WEB_BUILD: 'true' },
    minifySyntax: true, // folds WEB_BUILD away; names and layout stay readable
  };
  await esbuild.build({ ...common, entryPoints: [join(here, 'src/web/script.ts')], format: 'iife',
    outfile: join(webOut, 'ringcast.js') });
  // The module imports the script beside it ('./ringcast.js' stays an import, resolved by the
  // browser against the module's own URL).
  await esbuild.build({ ...common, entryPoints: [join(here, 'src/web/module.ts')], format: 'esm',
    outfile: join(webOut, 'ringcast.mjs'), external: ['./ringcast.js'] });
}

async function buildPackage() {
  rmSync(join(here, 'dist'), { recursive: true, force: true });
  for (const subpath of Object.keys(pkg.exports)) {
    if (subpath === './package.json') continue;
    const name = subpath === '.' ? 'index' : subpath.slice(2);
    const entry = join(here, 'src', subpath === '.' ? 'index.ts' : `${name}/index.ts`);
    for (const format of ['esm', 'cjs']) {
      await esbuild.build({
        absWorkingDir: here,
        entryPoints: [entry],
        outfile: join(here, 'dist', `${name}.${format === 'esm' ? 'mjs' : 'cjs'}`),
        bundle: true,
        format,
        platform: 'neutral',
        target: ['es2022', 'node20'],
        external: Object.keys(pkg.peerDependencies ?? {}),
        define: { WEB_BUILD: 'false' },
        plugins: name === 'index' ? [] : [coreAsExternal(format)],
        logLevel: 'warning',
      });
    }
  }
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.json')], { stdio: 'inherit' });
}

const packageOnly = process.argv.includes('--package');
if (webOutIndex < 0) await buildPackage();
if (!packageOnly) await buildWeb();
