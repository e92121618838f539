// The Lua scripts that decide the Pusher door's occupancy and presence members across nodes
// (server/redis/redis_pusher_scripts.hpp, docs/pusher.md "Several nodes"), run against a real redis-server
// as nodes A and B would run them: a user on two nodes is one member, added and removed once;
// a channel on two nodes is occupied and vacated once; a dead node is reaped once, its members
// removed before its channels are vacated; a node's state written again adds and removes what
// differs. The scripts are read from the C++ source, so this tests the very text the server sends
// (the two-node webhook test covers the server's use of them; members need the door's WebSocket).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startRedis } from './harness.mjs';

const source = readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)),
  '../../server/redis/redis_pusher_scripts.hpp'), 'utf8');
const lua = (name) => {
  const m = source.match(new RegExp(`inline constexpr const char\\* ${name} = R"lua\\(([\\s\\S]*?)\\)lua";`));
  assert.ok(m, `${name} in redis_pusher_scripts.hpp`);
  return m[1];
};
const change = lua('common_lua') + lua('change_lua');
const beat = lua('common_lua') + lua('beat_lua');
const rewrite = lua('common_lua') + lua('rewrite_lua');
const read = lua('read_lua');

const life = '60000';
let redis;
// A script's changes, as "a presence-x u1 {...}", "r presence-x u1", "o c", "v c".
const lines = (json) => JSON.parse(json === '{}' ? '[]' : json)
  .map((e) => [e.t, e.c, e.u, e.i].filter((x) => x !== undefined).join(' '));
const on = (node, ...args) => lines(redis.cli('EVAL', change, '0', node, life, 'ctl', ...args));

before(async () => {
  redis = await startRedis();
  for (const node of ['A', 'B']) redis.cli('EVAL', beat, '0', node, life, 'ctl', '100000');
});
after(async () => { await redis?.stop(); });

test('a user on two nodes is one member: added with its first connection anywhere, removed with its last', () => {
  assert.deepEqual(on('A', 'a', 'presence-x', 'u1', '{"n":"A"}'), ['a presence-x u1 {"n":"A"}']);
  assert.deepEqual(on('B', 'a', 'presence-x', 'u1', '{"n":"B"}'), []);
  assert.deepEqual(on('B', 'a', 'presence-x', 'u2', 'null'), ['a presence-x u2 null']);
  // The cluster's members, with the first connection's user_info.
  assert.equal(redis.cli('EVAL', read, '0', '60000', 'm', 'presence-x'), 'u1\n{"n":"A"}\nu2\nnull');
  assert.deepEqual(on('A', 'r', 'presence-x', 'u1'), []);
  assert.deepEqual(on('B', 'r', 'presence-x', 'u1'), ['r presence-x u1']);
  assert.deepEqual(on('B', 'r', 'presence-x', 'u2'), ['r presence-x u2']);
  assert.equal(redis.cli('EVAL', read, '0', '60000', 'm', 'presence-x'), '');
});

test('a channel on two nodes is occupied once and vacated once', () => {
  assert.deepEqual(on('A', 'o', 'c'), ['o c']);
  assert.deepEqual(on('B', 'o', 'c'), []);
  assert.deepEqual(on('A', 'v', 'c'), []);
  assert.deepEqual(on('B', 'v', 'c'), ['v c']);
});

test('a dead node is reaped once by a live one: its members removed, then its channels vacated', () => {
  on('B', 'o', 'd');
  on('B', 'a', 'presence-d', 'u3', '{}');
  on('A', 'o', 'shared');
  on('B', 'o', 'shared');
  redis.cli('ZADD', '{ringcast}:pusher:nodes', '1', 'B');  // B's last beat, long ago
  const [, reaped] = redis.cli('EVAL', beat, '0', 'A', life, 'ctl', '100000').split('\n');
  assert.deepEqual(lines(reaped), ['r presence-d u3', 'v d']);  // `shared` is still A's
  const [, again] = redis.cli('EVAL', beat, '0', 'A', life, 'ctl', '100000').split('\n');
  assert.deepEqual(lines(again), []);
  assert.equal(redis.cli('KEYS', '{ringcast}:pusher:B:*'), '');
  assert.deepEqual(on('A', 'v', 'shared'), ['v shared']);
});

test('a node writing its state again adds what Redis lacks and removes what it no longer holds, in Pusher\'s order', () => {
  on('A', 'o', 'gone');
  on('A', 'a', 'presence-gone', 'u8', 'null');
  const state = JSON.stringify({ o: ['presence-y'], m: [['presence-y', 'u9', '{}']] });
  assert.deepEqual(lines(redis.cli('EVAL', rewrite, '0', 'A', life, 'ctl', state)),
    ['r presence-gone u8', 'v gone', 'o presence-y', 'a presence-y u9 {}']);
  // The same state again changes nothing.
  assert.deepEqual(lines(redis.cli('EVAL', rewrite, '0', 'A', life, 'ctl', state)), []);
});
