// Redis failover through Sentinel (--redis sentinel://..., docs/scaling.md#sentinel): a real
// redis-server master and replica and three redis-sentinel processes on free loopback ports, two
// ringcast nodes pointed at the Sentinels. The master is killed mid-run: publishing answers 503
// during the switch and works again after it, connected clients keep their connections, and every
// publish acknowledged after the switch reaches every client once, in id order.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { startServer, uid, waitFor, sleep, assertIncreasing, freePort, requireCommand } from './harness.mjs';

const REDIS = requireCommand('redis-server');
const SENTINEL = requireCommand('redis-sentinel');
const CLI = requireCommand('redis-cli');


const cli = (port, ...args) =>
  execFileSync(CLI, ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8', timeout: 5000 }).trim();

// The same, for polling: a server that is restarting or changing role may drop the connection.
const tryCli = (port, ...args) => {
  try {
    return cli(port, ...args);
  } catch {
    return '';
  }
};

const procs = [];
function run(bin, args) {
  const proc = spawn(bin, args, { stdio: 'ignore' });
  proc.exited = new Promise((resolve) => proc.on('exit', resolve));
  procs.push(proc);
  return proc;
}
const listening = (port, what) => waitFor(() => new Promise((resolve) => {
  const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
  s.on('error', () => resolve(false));
}), 5000, what);

const redisArgs = (port, name) => ['--port', String(port), '--bind', '127.0.0.1', '--save', '',
  '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir,
  '--appendfilename', `${name}.aof`, '--appenddirname', `${name}-aof`,
  // Full syncs at once (the default waits 5 s for more replicas).
  '--repl-diskless-sync-delay', '0'];

let dir;
let master;
let replica;
let sentinels = [];
let nodes = [];

before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ringcast-sentinel-'));
  master = { port: await freePort() };
  master.proc = run(REDIS, redisArgs(master.port, 'master'));
  await listening(master.port, 'master');
  replica = { port: await freePort() };
  replica.proc = run(REDIS, [...redisArgs(replica.port, 'replica'), '--replicaof', '127.0.0.1', String(master.port)]);
  await listening(replica.port, 'replica');
  await waitFor(() => /master_link_status:up/.test(tryCli(replica.port, 'INFO', 'replication')), 5000, 'replica in sync');

  for (let i = 0; i < 3; i++) {
    const port = await freePort();
    const conf = path.join(dir, `sentinel${i}.conf`);
    writeFileSync(conf, [
      `port ${port}`, 'bind 127.0.0.1', `dir ${dir}`,
      `sentinel monitor mymaster 127.0.0.1 ${master.port} 2`,
      'sentinel down-after-milliseconds mymaster 1000',
      // After a failover, Sentinel makes no other for 2 x failover-timeout.
      'sentinel failover-timeout mymaster 3000',
      'sentinel parallel-syncs mymaster 1', '',
    ].join('\n'));
    sentinels.push({ port, proc: run(SENTINEL, [conf]) });
  }
  for (const s of sentinels) await listening(s.port, 'sentinel');
  // A failover needs the Sentinels to know each other and the replica (hello messages, every 2 s).
  for (const s of sentinels) {
    await waitFor(() => {
      const known = cli(s.port, 'SENTINEL', 'sentinels', 'mymaster').split('\n').filter((l) => l === 'name').length;
      const replicas = cli(s.port, 'SENTINEL', 'replicas', 'mymaster').split('\n').filter((l) => l === 'name').length;
      return known === 2 && replicas === 1;
    }, 15000, 'sentinels know each other and the replica', 200);
  }
  const url = `sentinel://${sentinels.map((s) => `127.0.0.1:${s.port}`).join(',')}/mymaster`;
  nodes = await Promise.all([1, 2].map(() => startServer(['--redis', url, '--threads', '2', '--history', '200'])));
  for (const n of nodes) await waitFor(async () => (await n.get('/healthz')).status === 200, 5000, 'node on redis');
});

after(async () => {
  await Promise.all(nodes.map((n) => n.stop()));
  for (const p of procs) {
    if (p.exitCode === null && p.signalCode === null) {
      p.kill('SIGKILL');
      await p.exited;
    }
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the nodes find the master through Sentinel', async () => {
  for (const n of nodes) assert.match(n.log, new RegExp(`master 'mymaster' is 127\\.0\\.0\\.1:${master.port}`));
  const client = await nodes[1].wsHello({ user: uid('s') });
  const { id } = await nodes[0].publish({ data: { hello: 'sentinel' } });
  await waitFor(() => client.ids().includes(id), 3000, 'message through the master');
  await client.close();
});

test('master killed: 503 during the switch, then publishing works; clients keep their connections and lose nothing acknowledged after it', async () => {
  const clients = [];
  for (const n of nodes) for (let i = 0; i < 2; i++) clients.push(await n.wsHello({ user: uid('fo') }));
  const before = [];
  for (let i = 0; i < 5; i++) before.push((await nodes[i % 2].publish({ data: { before: i } })).id);
  // The replica has them (what a switch can lose is what the replica did not have yet: see
  // docs/scaling.md); WAIT makes this test about the switch, not about replication lag.
  assert.equal(cli(master.port, 'WAIT', '1', '2000'), '1');
  for (const c of clients) await waitFor(() => before.every((id) => c.ids().includes(id)), 3000, 'before');

  const killedAt = Date.now();
  master.proc.kill('SIGKILL');
  await master.proc.exited;

  const statuses = [];
  const acknowledged = [];
  let firstOkAfter503 = null;
  const deadline = Date.now() + 30000;
  let i = 0;
  while (Date.now() < deadline) {
    const r = await nodes[i % 2].admin('POST', '/admin/publish', { body: { data: { during: i } } });
    i += 1;
    statuses.push(r.status);
    if (r.status === 200) {
      acknowledged.push(r.json.id);
      if (statuses.includes(503) && firstOkAfter503 === null) firstOkAfter503 = Date.now();
      if (firstOkAfter503 !== null && acknowledged.length >= 10) break;
    } else {
      assert.equal(r.status, 503, `publish during the switch: ${r.status} ${r.text}`);
      assert.equal(r.json.error, 'unavailable');
    }
    await sleep(50);
  }
  assert.ok(statuses.includes(503), `no 503 during the switch: ${statuses.join(',')}`);
  assert.ok(firstOkAfter503 !== null, `publishing never worked again: ${statuses.join(',')}`);
  // Once it works again, it keeps working.
  const firstOk = statuses.indexOf(200, statuses.indexOf(503));
  assert.ok(statuses.slice(firstOk).every((s) => s === 200), `503 after the switch: ${statuses.join(',')}`);
  const newMaster = cli(sentinels[0].port, 'SENTINEL', 'get-master-addr-by-name', 'mymaster').split('\n');
  assert.deepEqual(newMaster, ['127.0.0.1', String(replica.port)]);
  for (const n of nodes) {
    assert.match(n.log, new RegExp(`master 'mymaster' is 127\\.0\\.0\\.1:${replica.port}`));
    assert.equal((await n.get('/healthz')).status, 200);
  }
  console.log(`# switch: 503 for ${firstOkAfter503 - killedAt} ms after the kill; ${statuses.filter((s) => s === 503).length} publishes refused, ${acknowledged.length} acknowledged`);

  // Every client is still on its first connection and has every acknowledged message once, in order.
  for (const c of clients) {
    assert.equal(c.closeInfo, undefined, `a client was disconnected: ${JSON.stringify(c.closeInfo)}`);
    await c.sync();
    await waitFor(() => acknowledged.every((id) => c.ids().includes(id)), 5000, 'every acknowledged message');
    await sleep(100);
    const ids = c.ids();
    assertIncreasing(ids);
    assert.deepEqual(ids, [...before, ...acknowledged].sort((x, y) => x - y));
  }
  const metrics = (await nodes[0].get('/metrics')).text;
  assert.match(metrics, /ringcast_redis_up 1/);
  assert.match(metrics, /ringcast_redis_reconnects_total [1-9]/);
});

test('a failover with the old master still up (SENTINEL FAILOVER): the nodes follow +switch-master', async () => {
  // The killed master comes back; the Sentinels make it a replica of the new one.
  master.proc = run(REDIS, [...redisArgs(master.port, 'master')]);
  await listening(master.port, 'old master back');
  // Redis's own pace, not ringcast's: a Sentinel sees the returned master at its next INFO (every
  // 10 s for a master it does not follow), converts it, then the full resync runs. Under a
  // sanitizer stage on a loaded machine that took over 15 s (CI run of d999022) and over 30 s
  // (CI run of 5553d32), and once the Sentinels made the returned server the master again, the
  // other its replica (CI run of f113539). Either way one of the two ends a replica in sync of the
  // other, and the manual failover below promotes that one; the wait says where both stood if it
  // gives up.
  const inSync = (server) => /role:slave[\s\S]*master_link_status:up/.test(tryCli(server.port, 'INFO', 'replication'));
  let demoted;
  let serving;
  await waitFor(() => {
    if (inSync(master)) [demoted, serving] = [master, replica];
    else if (inSync(replica)) [demoted, serving] = [replica, master];
    return demoted !== undefined;
  }, 60000, 'one server a replica in sync of the other', 200).catch((e) => {
    throw new Error(`${e.message}; the returned server's INFO replication: ${tryCli(master.port, 'INFO', 'replication')}` +
      `; the other's: ${tryCli(replica.port, 'INFO', 'replication')}`);
  });
  const clients = [];
  for (const n of nodes) clients.push(await n.wsHello({ user: uid('manual') }));
  const switches = nodes.map((n) => (n.log.match(/announces \+switch-master/g) ?? []).length);
  // Asked until it is taken: a Sentinel refuses while the last failover is too recent.
  const promoted = () => tryCli(sentinels[0].port, 'SENTINEL', 'get-master-addr-by-name', 'mymaster').split('\n')[1] === String(demoted.port);
  await waitFor(async () => {
    if (promoted()) return true;
    tryCli(sentinels[1].port, 'SENTINEL', 'FAILOVER', 'mymaster');
    await sleep(1000);
    return promoted();
  }, 30000, 'the replica promoted', 0);
  // The demoted server stays up and refuses writes: only the announcement moves the nodes.
  for (const [i, n] of nodes.entries()) {
    await waitFor(() => (n.log.match(/announces \+switch-master/g) ?? []).length > switches[i], 5000, '+switch-master seen');
  }
  const acknowledged = [];
  let refused = null;
  try {
    await waitFor(async () => {
      const r = await nodes[0].admin('POST', '/admin/publish', { body: { data: { manual: 1 } } });
      if (r.status === 200) acknowledged.push(r.json.id);
      else refused = { status: r.status, body: r.text };
      return acknowledged.length > 0;
    }, 10000, 'publishing on the new master');
  } catch (err) {
    // Failed once in CI (never alone): say what the nodes and the servers saw.
    err.message += `\nlast refusal: ${JSON.stringify(refused)}` +
      `\npromoted: ${tryCli(demoted.port, 'INFO', 'replication').split('\n').slice(0, 4).join(' ')}` +
      `\nformer master: ${tryCli(serving.port, 'INFO', 'replication').split('\n').slice(0, 4).join(' ')}` +
      nodes.map((n, i) => `\nnode ${i} log:\n${n.logTail(25)}`).join('');
    throw err;
  }
  for (let i = 0; i < 5; i++) acknowledged.push((await nodes[i % 2].publish({ data: { manual: i } })).id);
  for (const c of clients) {
    await waitFor(() => acknowledged.every((id) => c.ids().includes(id)), 5000, 'every acknowledged message');
    assert.equal(c.closeInfo, undefined);
    assertIncreasing(c.ids());
  }
  // The server the nodes had been using is still up (Sentinel reconfigures it as a replica a
  // little later): the nodes moved because of the announcement, not because it went away.
  assert.equal(cli(serving.port, 'PING'), 'PONG');
});
