// ringcast-client/react: the hook type-checks against @types/react, and mounted with
// react-test-renderer (no DOM) it connects to the built server, renders the status and the
// messages, and closes its client when unmounted.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
// The integration suite's harness: the built server ($RINGCAST_BIN, else build/server/ringcast).
import { startServer } from '../../../tests/integration/harness.mjs';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

describe('ringcast-client/react', () => {
  let server;

  before(async () => {
    execFileSync(process.execPath, ['build.mjs', '--package'], { cwd: PACKAGE_DIR, stdio: 'pipe' });
    server = await startServer();
  });
  after(async () => { await server?.stop(); });

  test('tsc --strict type-checks an example component against @types/react', () => {
    execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'test/tsconfig.react.json'],
      { cwd: PACKAGE_DIR, stdio: 'pipe' });
  });

  test('useRingcast renders the status and each message, and closes its client on unmount', async () => {
    const { createElement } = await import('react');
    const { default: TestRenderer, act } = await import('react-test-renderer');
    const { useRingcast } = await import('ringcast-client/react');
    const user = `react-${process.pid}`;
    let client = null;
    function Promotions() {
      const result = useRingcast({ url: `${server.base}/`, user, transport: 'sse', channels: ['gree'] });
      client = result.client;
      return createElement('p', null, `${result.status.state}:${result.messages.map((m) => m.data.n).join(',')}`);
    }
    const text = (renderer) => renderer.toJSON().children.join('');
    const until = async (what, predicate) => {
      for (let i = 0; i < 250 && !predicate(); i++) await sleep(20);
      assert.ok(predicate(), what);
    };
    const publish = (body) => server.publish(body);

    // act() wants to know it is in a test environment; the updates in between come from the
    // client's events, as in an application.
    const inAct = async (fn) => {
      globalThis.IS_REACT_ACT_ENVIRONMENT = true;
      try { await act(fn); } finally { globalThis.IS_REACT_ACT_ENVIRONMENT = false; }
    };
    let renderer;
    await inAct(async () => { renderer = TestRenderer.create(createElement(Promotions)); });
    await until(() => `open, not ${text(renderer)}`, () => text(renderer) === 'open:');
    await publish({ user, data: { n: 1 } });
    await publish({ channel: 'gree', data: { n: 2 } });
    await publish({ channel: 'midea', data: { n: 3 } }); // not a channel of the component's
    await publish({ user, data: { n: 4 } });
    await until(() => `1,2,4, not ${text(renderer)}`, () => text(renderer) === 'open:1,2,4');
    const mounted = client;
    await inAct(async () => { renderer.unmount(); });
    assert.equal(mounted.state, 'closed');
  });
});
