// ringcast-client/publish: its types are openapi-typescript's output for docs/openapi.yaml (a
// change of the document without regenerating fails here), a wrong field is a type error under
// `tsc --strict` (test/publish_example.ts), and against the built server it publishes (a long-poll
// receives it), schedules, lists and cancels, reads reach, takes down, kicks, asks presence and
// stats, and turns a refusal into a RingcastApiError.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { generatedTypes, OUTPUT } from '../generate_openapi_types.mjs';
// The integration suite's harness: the built server ($RINGCAST_BIN, else build/server/ringcast).
import { startServer } from '../../../tests/integration/harness.mjs';

const PACKAGE_DIR = fileURLToPath(new URL('..', import.meta.url));
const require = createRequire(import.meta.url);

test('src/openapi.ts is what openapi-typescript generates from docs/openapi.yaml now', async () => {
  assert.equal(readFileSync(OUTPUT, 'utf8'), await generatedTypes(),
    'stale: run `node generate_openapi_types.mjs` in clients/js and commit src/openapi.ts');
});

test('tsc --strict --noEmit: the typed example passes and each @ts-expect-error line is an error', () => {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '--strict', '--noEmit', '-p',
    'test/tsconfig.publish.json'], { cwd: PACKAGE_DIR, stdio: 'pipe' });
});

describe('ringcast-client/publish against the built server', () => {
  let server;
  let admin;
  let mod;

  before(async () => {
    execFileSync(process.execPath, ['build.mjs', '--package'], { cwd: PACKAGE_DIR, stdio: 'pipe' });
    mod = await import('ringcast-client/publish');
    server = await startServer();
    admin = mod.createPublishClient({ url: server.base, adminToken: server.token });
  });
  after(async () => { await server?.stop(); });

  const poll = async (query) => (await fetch(`${server.base}/poll?${query}`)).json();

  test('publish reaches a client; reach, recent messages and take-down follow its id', async () => {
    const user = `publish-${process.pid}`;
    const { last_id: since } = await poll(`user=${user}&since=1`); // a gap: answered at once
    const held = poll(`user=${user}&since=${since}`);
    await new Promise((resolve) => { setTimeout(resolve, 200); });
    const answer = await admin.publish({ data: { title: 'Spring sale' }, user, ttl: '1h' });
    assert.equal(mod.isScheduled(answer), false);
    assert.equal(answer.recipients, 1);
    const got = await held;
    assert.equal(got.messages[0].id, answer.id);
    assert.deepEqual(got.messages[0].data, { title: 'Spring sale' });

    const reach = await admin.reach(answer.id);
    assert.equal(reach.id, answer.id);
    assert.equal(reach.expired, false);
    assert.equal((await admin.messages(5)).messages[0].id, answer.id);
    assert.deepEqual(await admin.takeDown(answer.id), { taken_down: true });
    assert.equal((await admin.reach(answer.id)).expired, true);
  });

  test('a publish in the future is scheduled, listed and cancelled', async () => {
    const answer = await admin.publish({ data: 'later', channel: 'shoes', delay: '1h' });
    assert.ok(mod.isScheduled(answer));
    const listed = await admin.scheduled();
    assert.ok(listed.scheduled.some((s) => s.scheduled === answer.scheduled && s.at === answer.at));
    assert.deepEqual(await admin.cancelScheduled(answer.scheduled), { cancelled: true });
    assert.equal((await admin.scheduled()).scheduled.some((s) => s.scheduled === answer.scheduled), false);
  });

  test('kick, presence and stats', async () => {
    assert.deepEqual(await admin.kick('nobody-here'), { kicked: 0 });
    assert.deepEqual(await admin.presence({ user: 'nobody-here' }), { user: 'nobody-here', online: false, sessions: 0 });
    assert.ok((await admin.stats()).messages.published >= 1);
  });

  test('what the server refuses is a RingcastApiError with its status and code', async () => {
    // The type error of test/publish_example.ts, past the compiler: the server refuses it too.
    const misspelt = { data: 1, chanel: 'shoes' };
    await assert.rejects(admin.publish(misspelt), (e) =>
      e instanceof mod.RingcastApiError && e.status === 400 && e.code === 'bad_request' && /chanel/.test(e.message));
    await assert.rejects(admin.cancelScheduled('dead-beef'), (e) => e.status === 404 && e.code === 'not_found');
    const wrong = mod.createPublishClient({ url: server.base, adminToken: 'wrong' });
    await assert.rejects(wrong.stats(), (e) => e.status === 401 && e.code === 'unauthorized');
  });
});
