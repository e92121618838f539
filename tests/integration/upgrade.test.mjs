// docs/operations.md, "Upgrading": SIGUSR2 checks the new binary and execs it in the same process,
// which takes over the listening socket (and the connections that move). A new binary that fails
// its check leaves the running one serving, nothing lost.
import { test } from 'node:test';
import http from 'node:http';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BIN, SANITIZER, rawConnect, request, sleep, startServer, uid, waitFor } from './harness.mjs';

// The directories of the copies and scripts below, removed when this file's tests end: a copy of
// the binary is ~100 MB, and a run makes dozens.
const madeDirs = [];
process.on('exit', () => {
  for (const dir of madeDirs) fs.rmSync(dir, { recursive: true, force: true });
});
function madeDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringcast-upgrade-'));
  madeDirs.push(dir);
  return dir;
}

// "Another build" of the binary: a copy under another path (the upgrade execs that path).
function copyOfBinary() {
  const dir = madeDir();
  const copy = path.join(dir, 'ringcast-next');
  fs.copyFileSync(BIN, copy);
  fs.chmodSync(copy, 0o755);
  return copy;
}

function script(name, body) {
  const dir = madeDir();
  const file = path.join(dir, name);
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`);
  fs.chmodSync(file, 0o755);
  return file;
}

// The log lines since `from` (an offset into srv.log).
const logSince = (srv, from) => srv.log.slice(from);

// Generous: the new binary is checked (two runs of it) and exec'd on 2 cores shared with builds.
async function upgraded(srv, count, timeoutMs = 15000) {
  return srv.statsUntil((s) => s.upgrades === count, timeoutMs, `upgrade ${count} done`);
}

test('SIGUSR2: the same process execs the new binary, which adopts the listening socket; admin requests during it are answered', async () => {
  const next = copyOfBinary();
  const srv = await startServer(['--upgrade-binary', next]);
  try {
    const pid = srv.proc.pid;
    const before = await srv.stats();
    assert.equal(before.upgrades, 0);
    assert.equal(typeof before.version, 'string');
    const first = await srv.publish({ data: 'before' });

    for (let round = 1; round <= 2; round++) {
      const from = srv.log.length;
      srv.proc.kill('SIGUSR2');
      // Admin requests keep coming while the new binary is checked and exec'd: every one of them
      // is answered (by the old process, or queued in the listening socket for the new one).
      const answers = [];
      for (let i = 0; i < 20; i++) {
        answers.push(srv.admin('GET', '/admin/stats').then((r) => r.status));
        await sleep(10);
      }
      assert.deepEqual(await Promise.all(answers), Array(20).fill(200));
      const after = await upgraded(srv, round);
      assert.equal(srv.proc.pid, pid);
      assert.equal(srv.exitInfo, undefined, 'the process exited');
      assert.match(logSince(srv, from), /upgraded in place \(upgrade \d+\): \d+ connection\(s\) moved \(\d+ WebSocket and SSE, \d+ HTTP of which \d+ held long-polls\), serving again after [\d.]+ ms/u);
      assert.ok(after.node.address.endsWith(`:${srv.port}`), 'the same listening address');
      const metrics = await srv.admin('GET', '/metrics');
      assert.match(metrics.text, new RegExp(`^ringcast_upgrades_total ${round}$`, 'mu'));
      assert.match(metrics.text, /^ringcast_build_info\{version="[^"]+"\} 1$/mu);
    }
    // The id sequence goes on above the ids of before.
    const later = await srv.publish({ data: 'after' });
    assert.ok(later.id > first.id, `${later.id} after ${first.id}`);
  } finally {
    await srv.stop();
  }
});

// Issue 40: every loop listens with a socket of its own (SO_REUSEPORT) and all of them are handed
// over. A new process that runs fewer loops (--threads from the config file, read again by the
// exec) accepts from every handed-over socket, so a request that arrived in any backlog during the
// exec is answered; one that runs more opens a socket for each loop left without one.
test('SIGUSR2 with --threads changed in the config file (2, then 1, then 3): every listening socket is handed over and accepted from, every request made during the upgrade answered', async () => {
  const dir = madeDir();
  const conf = path.join(dir, 'ringcast.conf');
  fs.writeFileSync(conf, 'threads = 2\n');
  const srv = await startServer(['--config', conf]);
  try {
    assert.match(srv.log, /listening on \S+ with 2 thread\(s\), 2 listening socket\(s\)/u);
    for (const [round, threads, sockets] of [[1, 1, 2], [2, 3, 3]]) {
      fs.writeFileSync(conf, `threads = ${threads}\n`);
      const from = srv.log.length;
      srv.proc.kill('SIGUSR2');
      // A fresh connection every 5 ms until the new process serves, and a few after: some wait in
      // the backlogs while the exec is under way.
      const answers = [];
      let done = false;
      const finished = upgraded(srv, round).finally(() => { done = true; });
      while (!done) {
        answers.push(srv.admin('GET', '/healthz').then((r) => r.status, (e) => e.message));
        await sleep(5);
      }
      const after = await finished;
      for (let i = 0; i < 20; i++) {
        answers.push(srv.admin('GET', '/healthz').then((r) => r.status, (e) => e.message));
        await sleep(5);
      }
      assert.deepEqual(await Promise.all(answers), Array(answers.length).fill(200));
      assert.equal(after.threads, threads);
      assert.match(logSince(srv, from), new RegExp(`listening on \\S+ with ${threads} thread\\(s\\), ${sockets} listening socket\\(s\\)`, 'u'));
    }
  } finally {
    await srv.stop();
  }
});

test('SIGUSR2 with a generated admin token: the new binary keeps the token', async () => {
  // No --admin-token and none in the environment: the server makes one and logs it.
  const env = { ...process.env };
  delete env.RINGCAST_ADMIN_TOKEN;
  const proc = spawn(BIN, ['--listen', '127.0.0.1:0', '--upgrade-binary', copyOfBinary(), '--drain', '0'],
    { stdio: ['ignore', 'pipe', 'pipe'], env });
  let log = '';
  proc.stderr.setEncoding('utf8').on('data', (c) => { log += c; });
  proc.stdout.setEncoding('utf8').on('data', (c) => { log += c; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  try {
    await waitFor(() => /listening on \S+:\d+/u.test(log) && /admin token \(generated/u.test(log), 5000, 'started');
    const port = Number(/listening on \S+:(\d+)/u.exec(log)[1]);
    const token = /admin token \(generated[^)]*\): (\S+)/u.exec(log)[1];
    const stats = async () => {
      const r = await request('127.0.0.1', port, 'GET', '/admin/stats', { headers: { authorization: `Bearer ${token}` } });
      return r.status === 200 ? r.json : null;
    };
    assert.equal((await stats()).upgrades, 0);
    proc.kill('SIGUSR2');
    await waitFor(async () => (await stats())?.upgrades === 1, 5000, 'the upgraded process answers the same token');
  } finally {
    proc.kill('SIGTERM');
    assert.deepEqual(await exited, { code: 0, signal: null }, log);
  }
});

test('SIGUSR2 when the exec itself fails (the script\'s interpreter vanished after its check): the loops go on, nothing lost', async () => {
  const next = copyOfBinary();
  // Passes both checks, then removes its interpreter: the exec that follows fails with ENOENT (the
  // file itself is exec'd through the descriptor it was checked through, so removing it would not).
  const dir = madeDir();
  const shell = path.join(dir, 'sh');
  fs.symlinkSync('/bin/sh', shell);
  const vanishing = path.join(dir, 'vanishing');
  fs.writeFileSync(vanishing, `#!${shell}\nfor a in "$@"; do [ "$a" = --check-config ] && { rm -f "${shell}"; exit 0; }; done\nexec "${next}" "$@"\n`);
  fs.chmodSync(vanishing, 0o755);
  const srv = await startServer(['--upgrade-binary', vanishing, '--poll-timeout', '20']);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const user = uid('vanish');
    const ws = await srv.wsHello({ user });
    const poller = uid('vanishp');
    const held = srv.poll({ user: poller }, { timeoutMs: 20000 });
    await srv.statsUntil((s) => s.connections.poll === 1, 3000, 'the poll held');
    // An idle keep-alive connection, parked while the upgrade waits for requests in flight.
    const before = await request(srv.host, srv.port, 'GET', '/healthz', { agent });
    const from = srv.log.length;
    srv.proc.kill('SIGUSR2');
    await waitFor(() => /upgrade failed, serving on: fexecve .*No such file/u.test(logSince(srv, from)), 8000, 'the failed exec logged');
    assert.equal((await srv.stats()).upgrades, 0);
    const m = await srv.publish({ user, data: 'after the failed exec' });
    assert.equal((await ws.next('message')).id, m.id);
    // The parked connection reads its next request again; the poll is still held, and answered.
    const after = await request(srv.host, srv.port, 'GET', '/healthz', { agent });
    assert.equal(after.status, 200);
    assert.equal(after.localPort, before.localPort, 'the keep-alive connection was closed');
    const p = await srv.publish({ user: poller, data: 'to the held poll' });
    assert.deepEqual((await held).json.messages.map((x) => x.id), [p.id]);
  } finally {
    agent.destroy();
    await srv.stop();
  }
});

// Issue 35: the binary is opened once, checked and exec'd through that descriptor. A file put at
// the path after the check (here by the check itself, when its --check-config runs) never runs:
// the checked one does, and the upgrade completes.
test('SIGUSR2 with the file at the path swapped after its check: the checked binary runs, the swapped one never', async () => {
  const next = copyOfBinary();
  const dir = madeDir();
  const marker = path.join(dir, 'swapped-one-ran');
  const swapped = path.join(dir, 'swapped');
  fs.writeFileSync(swapped, `#!/bin/sh\ntouch "${marker}"\nexit 3\n`);
  fs.chmodSync(swapped, 0o755);
  const checked = path.join(dir, 'checked');
  fs.writeFileSync(checked, `#!/bin/sh\nfor a in "$@"; do [ "$a" = --check-config ] && mv -f "${swapped}" "${checked}"; done\nexec "${next}" "$@"\n`);
  fs.chmodSync(checked, 0o755);
  const srv = await startServer(['--upgrade-binary', checked]);
  try {
    const user = uid('swap');
    const ws = await srv.wsHello({ user });
    srv.proc.kill('SIGUSR2');
    await upgraded(srv, 1);
    assert.equal(fs.existsSync(marker), false, 'the file swapped in after the check ran');
    assert.equal(srv.exitInfo, undefined, 'the process exited');
    const m = await srv.publish({ user, data: 'after the upgrade' });
    assert.equal((await ws.next('message')).id, m.id);
  } finally {
    await srv.stop();
  }
});

for (const [what, makeBinary, reason, extra = []] of [
  ['a new binary that exits 1', () => script('broken', 'exit 1'), /upgrade refused, serving on: .*exited 1/u],
  ['a new binary that is not executable', () => {
    const file = copyOfBinary();
    fs.chmodSync(file, 0o644);
    return file;
  }, /upgrade refused, serving on: .*not executable/u],
  ['a missing new binary', () => path.join(os.tmpdir(), `ringcast-none-${uid('x')}`), /upgrade refused, serving on: .*not executable/u],
  // A build that reads another state format than this one writes: it would refuse the state, so
  // it is never exec'd.
  ['a new binary that reads another state format', () => script('other-format',
    `if [ "$1" = --version ]; then echo "ringcast 9.9.9"; echo "state format 99"; exit 0; fi\nexec "${BIN}" "$@"`),
  /upgrade refused, serving on: .*does not read state format 7/u],
  ['a new binary that refuses the settings', () => script('strict',
    `for a in "$@"; do [ "$a" = --check-config ] && { echo "ringcast: --listen: refused" >&2; exit 2; }; done\nexec "${BIN}" "$@"`),
  /upgrade refused, serving on: .*--check-config exited 2: ringcast: --listen: refused/u],
  // A check that hangs is cut at --upgrade-check-timeout (exec: the shell becomes the sleep, so
  // the kill reaches it).
  ['a new binary whose check hangs', () => script('hangs', 'exec sleep 30'),
    /upgrade refused, serving on: .*--version.*did not finish within 1000 ms/u, ['--upgrade-check-timeout', '1s']],
]) {
  test(`SIGUSR2 with ${what}: the old process serves on, its clients untouched`, async () => {
    const srv = await startServer(['--upgrade-binary', makeBinary(), ...extra]);
    try {
      const user = uid('keep');
      const ws = await srv.wsHello({ user });
      const from = srv.log.length;
      srv.proc.kill('SIGUSR2');
      await waitFor(() => reason.test(logSince(srv, from)), 8000, `the refusal logged: ${reason}`);
      const s = await srv.stats();
      assert.equal(s.upgrades, 0);
      const m = await srv.publish({ user, data: 'still here' });
      assert.equal((await ws.next('message')).id, m.id);
      // And a later SIGUSR2 is handled again (the failed upgrade is over).
      const again = srv.log.length;
      srv.proc.kill('SIGUSR2');
      await waitFor(() => reason.test(logSince(srv, again)), 8000, 'the second refusal logged');
    } finally {
      await srv.stop();
    }
  });
}

// Publishes a broadcast every `everyMs` until stopped; resolves the ids, in the order answered.
function publishing(srv, everyMs) {
  const ids = [];
  let stop = false;
  const done = (async () => {
    while (!stop) {
      const r = await srv.publish({ data: { n: ids.length } });
      ids.push(r.id);
      await sleep(everyMs);
    }
    return ids;
  })();
  return { ids, stop: () => { stop = true; return done; } };
}

test('SIGUSR2 twice with WebSocket and SSE clients and publishes going on: same PID, no client connection closes, every message exactly once in id order', async () => {
  const next = copyOfBinary();
  const srv = await startServer(['--upgrade-binary', next, '--threads', '2']);
  try {
    const pid = srv.proc.pid;
    const ws = await Promise.all(Array.from({ length: 40 }, (_, i) => srv.wsHello({ user: uid(`uw${i}`), channels: 'news' })));
    const sse = await Promise.all(Array.from({ length: 10 }, (_, i) => srv.sseHello({ user: uid(`us${i}`) })));
    const stream = publishing(srv, 50); // 20 a second
    await sleep(300);
    for (let round = 1; round <= 2; round++) {
      srv.proc.kill('SIGUSR2');
      await upgraded(srv, round);
      await sleep(300);
    }
    const ids = await stream.stop();
    assert.ok(ids.length >= 10, `only ${ids.length} publishes`);
    assert.equal(srv.proc.pid, pid);
    // The streams: the HTTP connections moved besides them are the test's own requests.
    const moved = [...srv.log.matchAll(/upgraded in place \(upgrade \d\): \d+ connection\(s\) moved \((\d+) WebSocket and SSE/gu)].map((m) => Number(m[1]));
    assert.deepEqual(moved, [50, 50], srv.logTail());
    // Everything published reaches every client, once, in id order, and nothing else comes.
    const last = ids[ids.length - 1];
    await waitFor(() => ws.every((c) => c.ids().at(-1) === last) && sse.every((c) => c.ids().at(-1) === last), 10000, 'the last message everywhere');
    for (const c of ws) {
      assert.deepEqual(c.ids(), ids);
      assert.ok(c.isOpen(), `a WebSocket closed: ${JSON.stringify(c.closeInfo)}`);
      assert.deepEqual(c.messages.filter((m) => m.type !== 'message' && m.type !== 'hello'), []);
    }
    for (const c of sse) {
      assert.deepEqual(c.ids(), ids);
      assert.equal(c.endedAt, undefined, 'an SSE stream ended');
    }
    // The sessions are the same: a client's own messages and its subscriptions still reach it.
    const m = await srv.publish({ channel: 'news', data: 'channel after two upgrades' });
    for (const c of ws) assert.equal((await c.next((x) => x.type === 'message' && x.id === m.id)).id, m.id);
    // And clients still talk: a ping is answered by the new binary.
    await Promise.all(ws.map((c) => c.sync()));
    const s = await srv.stats();
    assert.equal(s.connections.ws, 40);
    assert.equal(s.connections.sse, 10);
  } finally {
    await srv.stop();
  }
});

test('SIGUSR2 with held long-polls and idle keep-alive connections: each moves, the polls are held on and answered on the same connection', async () => {
  const next = copyOfBinary();
  const srv = await startServer(['--upgrade-binary', next, '--threads', '2', '--poll-timeout', '20']);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const first = await srv.publish({ data: 'before the polls' });
    // Ten polls held without `since` (from now), ten with it; each on a connection of its own.
    const polls = Array.from({ length: 20 }, (_, i) => {
      const user = uid(`hp${i}`);
      const res = srv.poll(i % 2 ? { user } : { user, since: first.id }, { timeoutMs: 20000 });
      return { user, res };
    });
    await srv.statsUntil((s) => s.connections.poll === 20, 5000, '20 held polls');
    // An idle keep-alive connection: its next request goes over the same socket after the upgrade.
    const idleBefore = await request(srv.host, srv.port, 'GET', '/healthz', { agent });
    assert.equal(idleBefore.status, 200);

    const from = srv.log.length;
    srv.proc.kill('SIGUSR2');
    await upgraded(srv, 1);
    // 20 held polls and the pooled connection, plus any stats request of upgraded() that came
    // while the upgrade waited (parked and moved as well).
    const line = /upgraded in place \(upgrade 1\): \d+ connection\(s\) moved \(0 WebSocket and SSE, (\d+) HTTP of which 20 held long-polls\)/u.exec(logSince(srv, from));
    assert.ok(line && Number(line[1]) >= 21, srv.logTail());
    // The polls are held again by the new binary, on the sessions they had.
    const held = await srv.statsUntil((s) => s.connections.poll === 20, 5000, '20 polls held again');
    assert.equal(held.sessions.total, 20);
    const idleAfter = await request(srv.host, srv.port, 'GET', '/healthz', { agent });
    assert.equal(idleAfter.status, 200);
    assert.equal(idleAfter.localPort, idleBefore.localPort, 'the keep-alive connection was not reused');

    const m = await srv.publish({ data: 'after the upgrade' });
    for (const p of polls) {
      const r = await p.res; // a connection closed by the upgrade would reject here
      assert.equal(r.status, 200, r.text);
      assert.deepEqual(r.json.messages.map((x) => x.id), [m.id], `${p.user}: ${r.text}`);
    }
  } finally {
    agent.destroy();
    await srv.stop();
  }
});

// Raw HTTP/1.1 on one socket: what it has received so far, and a wait for a whole reply.
async function rawHttp(srv) {
  const socket = await rawConnect(srv);
  const c = { socket, text: '', closed: false };
  socket.setEncoding('utf8');
  socket.on('data', (d) => { c.text += d; });
  socket.on('close', () => { c.closed = true; });
  c.reply = (pattern, timeoutMs = 10000) => waitFor(() => pattern.test(c.text), timeoutMs, `a reply matching ${pattern}`);
  return c;
}

test('SIGUSR2 with a request half-sent on an idle connection: it moves with its bytes and the new binary answers it on the same socket', async () => {
  const next = copyOfBinary();
  const srv = await startServer(['--upgrade-binary', next, '--keepalive-timeout', '20']);
  try {
    const c = await rawHttp(srv);
    c.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    await sleep(100);
    srv.proc.kill('SIGUSR2');
    await upgraded(srv, 1);
    // The half-sent one, plus any stats request of upgraded() that came while the upgrade waited.
    const line = /moved \(0 WebSocket and SSE, (\d+) HTTP of which 0 held long-polls\)/u.exec(srv.log);
    assert.ok(line && Number(line[1]) >= 1, srv.logTail());
    c.socket.write('\r\n');
    await c.reply(/^HTTP\/1\.1 200 /u);
    assert.equal(c.closed, false);
    c.socket.destroy();
  } finally {
    await srv.stop();
  }
});

test('SIGUSR2 with --max-connections-per-ip: the connections that move stay counted against their address in the new binary', async () => {
  const next = copyOfBinary();
  const srv = await startServer(['--upgrade-binary', next, '--max-connections-per-ip', '4',
    '--keepalive-timeout', '20', '--handshake-timeout', '20']);
  const open = [];
  try {
    // Three idle keep-alive connections of 127.0.0.1, each answered once: they move.
    for (let i = 0; i < 3; i++) {
      const c = await rawHttp(srv);
      c.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await c.reply(/^HTTP\/1\.1 200 /u);
      open.push(c);
    }
    srv.proc.kill('SIGUSR2');
    await upgraded(srv, 1);
    const line = /moved \(0 WebSocket and SSE, (\d+) HTTP of which 0 held long-polls\)/u.exec(srv.log);
    assert.ok(line && Number(line[1]) >= 3, srv.logTail());
    const from = srv.log.length;
    // Three more of the same address: with the three that moved counted, at most one fits.
    for (let i = 0; i < 3; i++) {
      const c = await rawHttp(srv);
      open.push(c);
    }
    await waitFor(() => open.slice(3).filter((c) => c.closed).length >= 2, 5000,
      'two of the new connections closed at accept');
    assert.match(logSince(srv, from), /closed at accept over --max-connections-per-ip/u);
    assert.equal(open.slice(0, 3).filter((c) => c.closed).length, 0, 'a moved connection was closed');
  } finally {
    for (const c of open) c.socket.destroy();
    await srv.stop();
  }
});

// A held poll moves as its request again with `since` added: one whose request was just under the
// 8 KiB header limit is still read by the new binary, not refused 431.
test('SIGUSR2 with a held poll whose request is just under 8 KiB: held on and answered, not refused', async () => {
  const next = copyOfBinary();
  const srv = await startServer(['--upgrade-binary', next, '--poll-timeout', '20']);
  try {
    const c = await rawHttp(srv);
    const head = `GET /poll?user=${uid('big')} HTTP/1.1\r\nHost: 127.0.0.1\r\n`;
    const padding = 8190 - head.length - 'X-Pad: \r\n\r\n'.length;
    c.socket.write(`${head}X-Pad: ${'p'.repeat(padding)}\r\n\r\n`);
    await srv.statsUntil((s) => s.connections.poll === 1, 5000, 'the poll held');
    srv.proc.kill('SIGUSR2');
    await upgraded(srv, 1);
    await srv.statsUntil((s) => s.connections.poll === 1, 5000, 'the poll held again');
    const m = await srv.publish({ data: 'after' });
    await c.reply(/^HTTP\/1\.1 \d+ [\s\S]*\r\n\r\n[\s\S]*\}/u);
    assert.match(c.text, /^HTTP\/1\.1 200 /u, c.text.slice(0, 300));
    assert.ok(c.text.includes(`"id":${m.id}`), c.text.slice(0, 300));
    assert.equal(c.closed, false);
    c.socket.destroy();
  } finally {
    await srv.stop();
  }
});

test('SIGUSR2 with an admin publish in flight: the upgrade waits until it is answered (up to 1 s); one not done by then is not waited for', async () => {
  const next = copyOfBinary();
  const srv = await startServer(['--upgrade-binary', next, '--keepalive-timeout', '20']);
  try {
    const body = JSON.stringify({ data: 'published while the upgrade waited' });
    const head = `POST /admin/publish HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${srv.token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
    // Its body comes 300 ms after the signal: the old binary reads it, publishes and answers.
    const slow = await rawHttp(srv);
    slow.socket.write(head + body.slice(0, 5));
    await sleep(100);
    const from = srv.log.length;
    srv.proc.kill('SIGUSR2');
    await sleep(300);
    assert.doesNotMatch(logSince(srv, from), /upgraded in place/u, 'the upgrade did not wait');
    slow.socket.write(body.slice(5));
    await slow.reply(/^HTTP\/1\.1 200 [\s\S]*"id":\d+/u);
    await upgraded(srv, 1);
    assert.equal(slow.closed, false, 'the answered connection moved');
    assert.doesNotMatch(logSince(srv, from), /still in flight/u);

    // One whose body never comes: the upgrade goes on after 1 s, and its connection closes.
    const stuck = await rawHttp(srv);
    stuck.socket.write(head + body.slice(0, 5));
    await sleep(100);
    const again = srv.log.length;
    srv.proc.kill('SIGUSR2');
    await upgraded(srv, 2);
    assert.match(logSince(srv, again), /upgrade: 1 HTTP request\(s\) still in flight after 1000 ms: their connections close/u);
    await waitFor(() => stuck.closed, 3000, 'the stuck connection closed');
    slow.socket.destroy();
  } finally {
    await srv.stop();
  }
});

// A long-poll client as ringcast.js runs one: polls again at once with the last id it got, over
// one kept-alive connection. It records every id and the local port of every reply: one port
// throughout means its connection never closed.
function pollingClient(srv, user) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const c = { ids: [], ports: new Set(), others: [], errors: [], stopped: false };
  c.done = (async () => {
    let since;
    while (!c.stopped) {
      let r;
      try {
        r = await request(srv.host, srv.port, 'GET', `/poll?user=${user}${since === undefined ? '' : `&since=${since}`}`, { agent, timeoutMs: 30000 });
      } catch (e) {
        if (!c.stopped) c.errors.push(e.message); // its connection failed under it
        break;
      }
      c.ports.add(r.localPort);
      if (r.json?.type === 'messages') {
        c.ids.push(...r.json.messages.map((m) => m.id));
        since = r.json.last_id;
      } else {
        c.others.push(r.text);
      }
    }
    agent.destroy();
  })();
  c.stop = () => { c.stopped = true; };
  return c;
}

// The issue's scale (docs/operations.md, "Upgrading"): a load case, so it runs once, in the plain
// build; the 50-client test above covers the same under the sanitizers.
test('SIGUSR2 twice under 2,000 WebSocket, 500 SSE and 200 long-poll clients with 20 publishes a second: same PID, no connection closes, every message once in id order', { skip: SANITIZER !== 'none' && 'a load case: run in the plain build only' }, async () => {
  const next = copyOfBinary();
  const srv = await startServer(['--upgrade-binary', next, '--threads', '2', '--max-connections', '4000', '--poll-timeout', '20', '--max-connections-per-ip', '0'], { maxFiles: 12000 });
  const pollers = [];
  try {
    const pid = srv.proc.pid;
    const ws = [];
    for (let i = 0; i < 2000; i += 100)
      ws.push(...await Promise.all(Array.from({ length: 100 }, (_, j) => srv.wsHello({ user: uid(`lw${i + j}`) }, {}, 10000))));
    const sse = [];
    for (let i = 0; i < 500; i += 100)
      sse.push(...await Promise.all(Array.from({ length: 100 }, (_, j) => srv.sseHello({ user: uid(`ls${i + j}`) }, {}, 10000))));
    for (let i = 0; i < 200; i++) pollers.push(pollingClient(srv, uid(`lp${i}`)));
    await srv.statsUntil((s) => s.connections.poll === 200, 10000, '200 held polls');
    const stream = publishing(srv, 50);
    await sleep(500);
    for (let round = 1; round <= 2; round++) {
      srv.proc.kill('SIGUSR2');
      await upgraded(srv, round, 30000);
      await sleep(500);
    }
    const ids = await stream.stop();
    assert.equal(srv.proc.pid, pid);
    const moved = [...srv.log.matchAll(/upgraded in place \(upgrade \d\): \d+ connection\(s\) moved \((\d+) WebSocket and SSE, (\d+) HTTP of which \d+ held long-polls\)/gu)]
      .map((m) => [Number(m[1]), Number(m[2])]);
    assert.equal(moved.length, 2, srv.logTail());
    for (const [streams, http] of moved) {
      assert.equal(streams, 2500);
      // Every long-poll client's connection moved: its poll held, or parked between two polls.
      assert.ok(http >= 200, `${http} HTTP connections moved`);
    }
    const last = ids.at(-1);
    const got = (c) => c.ids().at(-1) === last;
    await waitFor(() => ws.every(got) && sse.every(got) && pollers.every((p) => p.ids.at(-1) === last), 20000, 'the last message everywhere');
    assert.deepEqual(pollers.flatMap((p) => p.errors), [], 'a long-poll request failed');
    for (const p of pollers) p.stop();
    const wsClosed = ws.filter((c) => !c.isOpen()).length;
    const sseEnded = sse.filter((c) => c.endedAt !== undefined).length;
    assert.equal(wsClosed + sseEnded, 0, `${wsClosed} WebSocket(s) closed, ${sseEnded} SSE stream(s) ended`);
    const wrong = (list) => list.filter((c) => JSON.stringify(c.ids()) !== JSON.stringify(ids)).length;
    assert.equal(wrong(ws), 0, 'WebSocket clients without every message once in order');
    assert.equal(wrong(sse), 0, 'SSE clients without every message once in order');
    assert.equal(pollers.filter((p) => JSON.stringify(p.ids) !== JSON.stringify(ids)).length, 0, 'long-poll clients without every message once in order');
    assert.deepEqual(pollers.filter((p) => p.ports.size !== 1).map((p) => [...p.ports]), [], 'a long-poll connection closed');
    assert.deepEqual(pollers.flatMap((p) => p.others), [], 'a long-poll answered other than with messages');
    const s = await srv.stats();
    assert.equal(s.connections.ws, 2000);
    assert.equal(s.connections.sse, 500);
  } finally {
    for (const p of pollers) p.stop();
    await srv.stop();
  }
});

test('SIGUSR2 with native TLS: the connections cannot move and get the drain\'s reconnect with a jittered retry_ms, counted; the listener moves', async () => {
  const next = copyOfBinary();
  const srv = await startServer(['--upgrade-binary', next, '--drain', '2'], { tls: true });
  try {
    const ws = await Promise.all(Array.from({ length: 4 }, () => srv.wsHello({ user: uid('tls') })));
    const sse = await srv.sseHello({ user: uid('tlss') });
    srv.proc.kill('SIGUSR2');
    for (const c of ws) {
      const m = await c.next('reconnect', 5000);
      assert.equal(m.reason, 'shutdown');
      assert.ok(Number.isInteger(m.retry_ms) && m.retry_ms >= 0 && m.retry_ms <= 2000, JSON.stringify(m));
      await c.waitClosed(3000);
    }
    const ev = await sse.next('reconnect', 5000);
    assert.equal(ev.json.reason, 'shutdown');
    await sse.waitEnded(3000);
    const s = await upgraded(srv, 1);
    assert.equal(s.upgrade_reconnects, 5);
    const metrics = await srv.admin('GET', '/metrics');
    assert.match(metrics.text, /^ringcast_upgrade_reconnects_total 5$/mu);
    // The clients come back to the new binary over TLS.
    const again = await srv.wsHello({ user: uid('tls') });
    assert.equal(again.hello.type, 'hello');
  } finally {
    await srv.stop();
  }
});

test('SIGUSR2: sessions, history, a scheduled promotion and reach are the same after the upgrade', async () => {
  const next = copyOfBinary();
  const srv = await startServer(['--upgrade-binary', next, '--threads', '2', '--session-ttl', '30']);
  try {
    // A session that is connected, and one waiting out its TTL.
    const live = uid('live');
    const ws = await srv.wsHello({ user: live, channels: 'deals' });
    const away = uid('away');
    const gone = await srv.wsHello({ user: away, sid: 's1' });
    const first = await srv.publish({ user: away, data: 'for away, before it left' });
    assert.equal((await gone.next('message')).id, first.id);
    await gone.close();
    const missed = await srv.publish({ user: away, data: 'for away, while it was away' });
    const deal = await srv.publish({ channel: 'deals', data: 'deal' });
    assert.equal((await ws.next('message')).id, deal.id);
    ws.send({ type: 'ack', id: deal.id });
    await waitFor(async () => (await srv.admin('GET', `/admin/messages/${deal.id}`)).json?.acked === 1, 3000, 'the ack counted');
    const promo = await srv.admin('POST', '/admin/publish', { body: { user: live, data: 'scheduled', delay: '1500ms' } });
    assert.equal(promo.status, 202, promo.text);
    const reachBefore = (await srv.admin('GET', `/admin/messages/${deal.id}`)).json;
    const scheduledBefore = (await srv.admin('GET', '/admin/scheduled')).json.scheduled;
    const sessionsBefore = (await srv.stats()).sessions.total;

    srv.proc.kill('SIGUSR2');
    await upgraded(srv, 1);
    assert.match(srv.log, /upgraded in place \(upgrade 1\): 1 connection\(s\) moved/u);

    // Reach and the schedule answer the same.
    assert.deepEqual((await srv.admin('GET', `/admin/messages/${deal.id}`)).json, reachBefore);
    assert.deepEqual((await srv.admin('GET', '/admin/scheduled')).json.scheduled, scheduledBefore);
    assert.equal((await srv.stats()).sessions.total, sessionsBefore);
    // The session that was away resumes by `since` from the restored history: no gap.
    const back = await srv.wsHello({ user: away, sid: 's1', since: first.id });
    assert.equal(back.hello.resumed, true, JSON.stringify(back.hello));
    assert.equal(back.hello.gap, false, JSON.stringify(back.hello));
    assert.equal((await back.next('message')).id, missed.id);
    // The moved connection gets the scheduled promotion at its time, once.
    const due = await ws.next((m) => m.type === 'message' && m.data === 'scheduled', 4000);
    assert.equal(due.data, 'scheduled');
    await ws.none('message', 300);
    assert.ok(ws.isOpen());
  } finally {
    await srv.stop();
  }
});

// The binary started with a state that names `listeners` (descriptors, IPv4) and nothing else,
// written as the binary's own format has it (its --version), on descriptor 3: its exit and stderr.
async function startedWithState(listeners) {
  const version = await new Promise((resolve) => {
    const p = spawn(BIN, ['--version'], { stdio: ['ignore', 'pipe', 'ignore'] });
    let out = '';
    p.stdout.on('data', (c) => { out += c; });
    p.on('exit', () => resolve(out));
  });
  const format = Number(/state format (\d+)/u.exec(version)[1]);
  const u32 = (v) => { const b = Buffer.alloc(4); b.writeUInt32LE(v); return b; };
  const u64 = (v) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(v)); return b; };
  const payload = Buffer.concat([
    u64(5), u64(0), u64(0), u64(0), u64(0), // last id, upgrades, reconnected, pause, no admin token
    u32(listeners.length), ...listeners.flatMap((fd) => [u32(fd), Buffer.from([0])]), // IPv4
    u32(0), u32(0), // no streams, no HTTP connections
    ...(format >= 3 ? [u32(0)] : []), // no queued messages (format 3 on)
    u64(0), u64(0), // no node id, no node state
  ]);
  let h = 0xcbf29ce484222325n;
  for (const c of payload) h = ((h ^ BigInt(c)) * 0x100000001b3n) & 0xffffffffffffffffn;
  const dir = madeDir();
  const file = path.join(dir, 'state');
  fs.writeFileSync(file, Buffer.concat([Buffer.from('RCHO'), u32(format), u64(payload.length), u64(h), payload]));
  const fd = fs.openSync(file, 'r');
  const result = await new Promise((resolve) => {
    const p = spawn(BIN, ['--listen', '127.0.0.1:0', '--upgrade-state-fd', '3'],
      { stdio: ['ignore', 'pipe', 'pipe', fd] });
    let err = '';
    p.stderr.setEncoding('utf8').on('data', (c) => { err += c; });
    p.stdout.resume();
    const timer = setTimeout(() => p.kill('SIGKILL'), 10000);
    p.on('exit', (code, signal) => { clearTimeout(timer); resolve({ code, signal, err }); });
  });
  fs.closeSync(fd);
  return result;
}

// Issue 35: a state whose descriptors are not what it says is refused with an error exit and one
// line naming what is wrong, before anything is adopted (it aborted with SIGABRT). The listener is
// named as descriptor 0, which is /dev/null.
test('--upgrade-state-fd with a listener descriptor that is not a socket: exit 2 and a line naming it, no abort', async () => {
  const result = await startedWithState([0]);
  assert.deepEqual({ code: result.code, signal: result.signal }, { code: 2, signal: null }, result.err);
  assert.equal(result.err, 'ringcast: --upgrade-state-fd: the listener: descriptor 0 is not a socket\n');
});

// Issue 40: a state holds a listening socket per loop of the old process; one with none (or more
// than --threads' 1,024) is refused the same way.
test('--upgrade-state-fd with no listening socket, or more than 1,024: exit 2 and a line saying so', async () => {
  const none = await startedWithState([]);
  assert.deepEqual({ code: none.code, signal: none.signal }, { code: 2, signal: null }, none.err);
  assert.equal(none.err, 'ringcast: --upgrade-state-fd: no listening socket\n');
  const many = await startedWithState(Array.from({ length: 1025 }, (_, i) => 100 + i));
  assert.deepEqual({ code: many.code, signal: many.signal }, { code: 2, signal: null }, many.err);
  assert.equal(many.err, 'ringcast: --upgrade-state-fd: 1025 listening sockets, more than 1024\n');
});
