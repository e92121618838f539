// The command line: --help lists every flag with its default; a bad flag exits 2 with a message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn } from 'node:child_process';
import net from 'node:net';
import { BIN, runBinary as run, waitFor } from './harness.mjs';

// Every flag --help must list, with its exact default as --help prints it, `(=VALUE)` (durations
// in their shortest spelling), or null for a flag without a default, or 'switch' for one that takes
// no value. docs/operations.md and docs/protocol.md ("Timeouts and keep-alive") give these
// defaults; a flag added to the server and not here, or dropped, fails the test.
const FLAGS = {
  '--help': 'switch',
  '--version': 'switch',
  '--config': null,
  '--listen': '127.0.0.1:8080',
  '--threads': '0',
  '--poll-timeout': '25s',
  '--heartbeat': '25s',
  '--idle-timeout': '1m',
  '--session-ttl': '2m',
  '--first-poll-ttl': '10s',
  '--handshake-timeout': '10s',
  '--keepalive-timeout': '10s',
  '--write-timeout': '30s',
  '--max-connection-age': '0',
  '--drain': '5s',
  '--reconnect-delay': '1s',
  '--max-spread': '10m',
  '--tick-ms': '100',
  '--wheel-slots': '512',
  '--history': '1000',
  '--max-queue': '1024',
  '--max-body': '65536',
  '--max-connections': '20000',
  '--send-buffer': '262144',
  '--max-sessions': '0',
  '--max-sessions-per-user': '16',
  '--max-poll-batch': '100',
  '--max-scheduled': '100000',
  '--max-connections-per-ip': '64',
  '--connect-rate-per-ip': '0',
  '--ipv6-prefix': '64',
  '--trusted-proxy': null,
  '--client-message-rate': '50',
  '--max-sticky': '100',
  '--compression': 'on',
  '--compress-min-bytes': '100',
  '--admin-token': null,
  '--admin-token-file': null,
  '--web-root': null,
  '--redis': null,
  '--redis-password-file': null,
  '--client-secret': null,
  '--client-secret-file': null,
  '--client-public-key': null,
  '--allow-tokens-without-exp': 'switch',
  '--require-exp': 'switch',
  '--client-audience': null,
  '--client-issuer': null,
  '--demo': 'switch',
  '--allowed-origins': null,
  '--allowed-hosts': null,
  '--tls-cert': null,
  '--tls-key': null,
  '--hsts': '8760h',
  '--log-level': 'info',
  '--hook-url': null,
  '--hook-secret': null,
  '--hook-secret-file': null,
  '--hook-ca': '/etc/ssl/certs/ca-certificates.crt',
  '--connect-hook': null,
  '--connect-hook-fallback': 'deny',
  '--connect-hook-concurrency': '64',
  '--hook-batch': '100',
  '--hook-flush': '250ms',
  '--hook-timeout': '2s',
  '--hook-queue': '100000',
  '--pusher-app-id': null,
  '--pusher-key': null,
  '--pusher-secret': null,
  '--pusher-secret-file': null,
  '--pusher-client-events': 'switch',
  '--pusher-webhook-url': null,
  '--upgrade-binary': null,
  '--upgrade-check-timeout': '10s',
  '--check-config': 'switch',
  '--upgrade-state-fd': null,
  '--print-routes': 'switch',
};

// --help as { flag: default | null | 'switch' }, from Boost.Program_options' layout: an entry
// starts with "  -h [ --help ]" or "  --flag VALUE (=DEFAULT)" at the start of a line.
function parseHelp(text) {
  const flags = {};
  for (const line of text.split('\n')) {
    const m = /^\s{1,4}(?:-\w \[ )?(--[a-z][a-z0-9-]*)(?: \])?(?: ([A-Z:]+)(?: \(=(\S+)\))?)?(?:\s|$)/u.exec(line);
    if (!m) continue;
    flags[m[1]] = m[2] === undefined ? 'switch' : m[3] ?? null;
  }
  return flags;
}

test('--help lists every flag with its exact default and exits 0', async () => {
  const r = await run(['--help']);
  assert.equal(r.code, 0, r.err);
  const text = r.out + r.err;
  assert.deepEqual(parseHelp(text), FLAGS, `--help:\n${text}`);
  // The flags without a default say where the value comes from instead.
  assert.match(text, /RINGCAST_ADMIN_TOKEN/);
  assert.match(text, /RINGCAST_CLIENT_SECRET/);
});

test('a bad flag value exits 2 with a message naming the flag', async () => {
  const cases = [
    ['--poll-timeout', 'soon'],
    ['--heartbeat', '-5'],
    ['--idle-timeout', '10x'],
    ['--session-ttl', ''],
    ['--history', 'many'],
    ['--tick-ms', 'abc'],
    ['--listen', 'nonsense'],
    ['--listen', '127.0.0.1:99999'],
    ['--max-connections', '-1'],
    ['--compression', 'maybe'],
    ['--compress-min-bytes', 'some'],
  ];
  for (const [flag, value] of cases) {
    const r = await run([flag, value, '--listen', '127.0.0.1:0'].slice(0, flag === '--listen' ? 2 : 4));
    assert.equal(r.code, 2, `${flag} ${JSON.stringify(value)}: exit ${r.code} ${r.signal ?? ''}\n${r.err}`);
    assert.ok(r.err.includes(flag.slice(2)), `${flag} ${JSON.stringify(value)}: message does not name the flag: ${r.err}`);
  }
});

test('an unknown flag exits 2 with a message', async () => {
  const r = await run(['--no-such-flag', '1']);
  assert.equal(r.code, 2, r.err);
  assert.ok(r.err.includes('no-such-flag'), r.err);
});

test('--version prints the project version from CMakeLists.txt and the upgrade state format it reads, and exits 0', async () => {
  const cmake = fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../CMakeLists.txt'), 'utf8');
  const version = /project\(ringcast VERSION (\S+)/u.exec(cmake)[1];
  const r = await run(['--version']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.out, `ringcast ${version}\nstate format 7\n`);
});

test('--web-root that is not a readable directory exits 2 naming it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ringcast-web-root-'));
  const file = path.join(dir, 'index.html');
  fs.writeFileSync(file, '<p>hi</p>');
  try {
    for (const [root, why] of [[path.join(dir, 'missing'), /No such file or directory/u], [file, /Not a directory/u]]) {
      const r = await run(['--web-root', root, '--listen', '127.0.0.1:0']);
      assert.equal(r.code, 2, `--web-root ${root}: exit ${r.code} ${r.signal ?? ''}\n${r.err}`);
      assert.ok(r.err.includes(`--web-root: '${root}' is not a readable directory`), r.err);
      assert.match(r.err, why);
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// A port another process holds: the server cannot serve, so it says so at error level and exits 2,
// as a bad flag does (not 1 at warn: a service manager and a newcomer's shell both see why).
test('--listen on a taken port: "error cannot listen" and exit 2', async () => {
  const holder = net.createServer();
  await new Promise((resolve) => holder.listen(0, '127.0.0.1', resolve));
  const { port } = holder.address();
  try {
    const r = await run(['--listen', `127.0.0.1:${port}`, '--admin-token', 'x']);
    assert.equal(r.code, 2, `exit ${r.code} ${r.signal ?? ''}\n${r.err}`);
    assert.match(r.err, new RegExp(`^\\S+ error cannot listen on 127\\.0\\.0\\.1:${port}: Address already in use$`, 'mu'));
  } finally {
    holder.close();
  }
  const r = await run(['--listen', 'no-such-host.invalid:0', '--admin-token', 'x'], 15000);
  assert.equal(r.code, 2, r.err);
  assert.match(r.err, /^\S+ error cannot listen on no-such-host\.invalid:0: the name does not resolve/mu);
});

// Names are resolved as --redis and ringcast-load's --target resolve theirs.
test('--listen localhost:0 listens on 127.0.0.1', async () => {
  const proc = spawn(BIN, ['--listen', 'localhost:0', '--admin-token', 'x', '--drain', '0'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  proc.stderr.setEncoding('utf8').on('data', (c) => { log += c; });
  const exited = new Promise((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  try {
    await waitFor(() => /listening on 127\.0\.0\.1:\d+/u.test(log), 5000, `the listening line (${log})`);
    const port = Number(/listening on 127\.0\.0\.1:(\d+)/u.exec(log)[1]);
    const r = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(r.status, 200);
  } finally {
    proc.kill('SIGTERM');
  }
  assert.deepEqual(await exited, { code: 0, signal: null }, log);
});
