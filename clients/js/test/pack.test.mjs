// The package as a user gets it: `npm pack`, then installed OFFLINE into an empty project (with an
// empty npm cache: nothing but the tarball may be needed), where it loads as ES module and
// CommonJS, type-checks a typed example with `tsc --strict`, and from Node connects to the built
// server, receives what is published and resumes across the server's reconnects, on every
// transport (Node 20 has no global WebSocket: `--experimental-websocket` gives it one; SSE is read
// through fetch).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
// The integration suite's harness: the built server ($RINGCAST_BIN, else build/server/ringcast).
import { startServer } from '../../../tests/integration/harness.mjs';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const CONSUMER_FILES = fileURLToPath(new URL('consumer/', import.meta.url));
const NODE_MAJOR = Number(process.versions.node.split('.')[0]);
const run = (command, args, cwd) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

describe('the packed tarball in an empty project', () => {
  let dir;
  let server;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ringcast-client-pack-'));
    const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', dir], PACKAGE_DIR));
    const project = join(dir, 'project');
    run('mkdir', [project]);
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    for (const name of readdirSync(CONSUMER_FILES)) copyFileSync(join(CONSUMER_FILES, name), join(project, name));
    // An empty cache and --offline: an install that needed anything from a registry fails.
    run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--cache', join(dir, 'cache'),
      join(dir, packed.filename)], project);
    server = await startServer(['--max-connection-age', '1s', '--reconnect-delay', '200ms']);
  });
  after(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const project = () => join(dir, 'project');

  test('installs with nothing else (React is an optional peer)', () => {
    assert.deepEqual(readdirSync(join(project(), 'node_modules')).filter((n) => !n.startsWith('.')),
      ['ringcast-client']);
  });

  test('loads as CommonJS', () => {
    const out = JSON.parse(run(process.execPath, ['require.cjs'], project()));
    assert.deepEqual(out, { type: 'function', state: 'idle' });
  });

  test('tsc --strict --noEmit passes on a typed example using every public type', () => {
    const tsc = createRequire(join(PACKAGE_DIR, 'package.json')).resolve('typescript/bin/tsc');
    run(process.execPath, [tsc, '-p', 'tsconfig.json'], project());
  });

  for (const transport of ['ws', 'sse', 'poll']) {
    test(`from Node over ${transport}: receives every publish once, in order, across reconnects`, () => {
      const flags = transport === 'ws' && NODE_MAJOR < 22 ? ['--experimental-websocket'] : [];
      const out = run(process.execPath,
        [...flags, 'receive.mjs', `${server.base}/`, server.token, transport, '12'], project());
      const { received, statuses, shared } = JSON.parse(out.trim().split('\n').at(-1));
      assert.deepEqual(received, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12], JSON.stringify(statuses));
      assert.equal(shared, false, 'no tabs to share with in Node');
      assert.ok(statuses.every(([, via]) => via === transport || via === null), JSON.stringify(statuses));
      if (transport !== 'poll') {
        // --max-connection-age 1s over 3 s of publishing: the server ended the connection, the
        // client came back with since.
        assert.ok(statuses.some(([state, , reason]) => state === 'reconnecting' && reason === 'rebalance'),
          JSON.stringify(statuses));
      }
    });
  }
});
