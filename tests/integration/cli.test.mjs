// The command line: --help lists every flag with its default; a bad flag exits 2 with a message.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runBinary as run } from './harness.mjs';

// flag -> accepted spellings of its default (docs/protocol.md and docs/operations.md).
const FLAGS = {
  '--listen': /127\.0\.0\.1:8080/,
  '--history': /1000/,
  '--poll-timeout': /25/,
  '--heartbeat': /25/,
  '--idle-timeout': /60|1m/,
  '--session-ttl': /120|2m/,
  '--handshake-timeout': /10/,
  '--max-connection-age': /\b0/,
  '--tick-ms': /100/,
  '--drain': /\b5/,
  '--max-body': /65536|64\s*Ki?B|64k/i,
  '--max-connections': /\d/,
  '--max-queue': /\d/,
  '--admin-token': /RINGCAST_ADMIN_TOKEN|random/i,
};

test('--help lists every flag with its default and exits 0', async () => {
  const r = await run(['--help']);
  assert.equal(r.code, 0, r.err);
  const text = r.out + r.err;
  const lines = text.split('\n');
  for (const [flag, def] of Object.entries(FLAGS)) {
    const i = lines.findIndex((l) => new RegExp(`(^|[\\s,])${flag}\\b(?!-)`).test(l));
    assert.ok(i >= 0, `--help does not list ${flag}:\n${text}`);
    // The flag's entry: its line and continuation lines up to the next flag.
    let entry = lines[i].slice(lines[i].indexOf(flag) + flag.length);
    for (let j = i + 1; j < lines.length && !/^\s*-/.test(lines[j]) && lines[j].trim() !== ''; j++) entry += ` ${lines[j]}`;
    assert.match(entry, def, `--help: no default for ${flag} in "${entry.trim()}"`);
  }
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
