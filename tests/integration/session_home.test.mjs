// Which event loop holds a user's sessions (docs/performance.md §20, core/home_slots.hpp): the
// loop that read the first connect of any user of the user's slot, while a session of them lasts.
// A new user is served where it was accepted; a user's later connects, read on either loop, join
// its sessions, so the per-user limit and user-targeted publishes see all of them.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { startServer, uid } from './harness.mjs';

describe('two event loops (--threads 2)', () => {
  let srv;
  before(async () => {
    srv = await startServer(['--threads', '2', '--max-sessions-per-user', '3',
      '--max-connections-per-ip', '0']);
  });
  after(async () => { await srv?.stop(); });

  test('a new user is served on the loop that accepted it: no connect is handed over', async () => {
    const before0 = (await srv.stats()).sessions.handed;
    const clients = [];
    for (let i = 0; i < 40; i++) clients.push(await srv.wsHello({ user: uid('new') }));
    const s = await srv.stats();
    // 40 names in 2^17 slots: two share one with odds of 1 in 160, and then half the time a loop.
    assert.ok(s.sessions.handed - before0 <= 1, `handed ${s.sessions.handed - before0} of 40`);
    assert.equal(s.connections.ws, 40);
    await Promise.all(clients.map((c) => c.close()));
  });

  test("a user's connects, read on either loop, join its sessions: its limit and its publishes see all", async () => {
    const before0 = (await srv.stats()).sessions.handed;
    const users = Array.from({ length: 6 }, () => uid('many'));
    const held = [];
    for (const user of users) {
      for (const sid of ['a', 'b', 'c']) held.push(await srv.wsHello({ user, sid }));
      const over = await srv.wsRefused({ user, sid: 'd' });
      assert.equal(over.status, 429, `${user}'s fourth live session`);
    }
    // Each later connect lands on either loop; 12 of 18 all on the first one's would be 1 in 2^12.
    const handed = (await srv.stats()).sessions.handed - before0;
    assert.ok(handed >= 1, `handed ${handed}`);
    for (const user of users) await srv.publish({ user, data: `for ${user}` });
    for (const [i, c] of held.entries()) {
      const m = await c.next('message');
      assert.equal(m.data, `for ${users[Math.floor(i / 3)]}`);
    }
    await Promise.all(held.map((c) => c.close()));
  });
});
