// The Lua scripts of the Pusher channels across nodes (redis/redis_pusher.cpp; docs/pusher.md,
// "Several nodes"), each run whole by EVAL so that a change and its cluster-wide consequences are
// one step; tests/integration/pusher_redis_scripts.test.mjs runs them against a real redis-server.
#pragma once

namespace ringcast::pusher_lua {

// Every change script starts with these. ARGV[1] node, ARGV[2] key life (ms), ARGV[3] the control
// channel. `out` collects the cluster's changes: {t = o|v|a|r, c = channel, u = user, i = info}.
inline constexpr const char* common_lua = R"lua(
local p = '{ringcast}:pusher:'
local node, life, control = ARGV[1], ARGV[2], ARGV[3]
local out = {}
local function elsewhere(suffix, member)
  for _, n in ipairs(redis.call('ZRANGE', p .. 'nodes', 0, -1)) do
    if n ~= node and redis.call('SISMEMBER', p .. n .. suffix, member) == 1 then return true end
  end
  return false
end
local function occupy(c)
  if redis.call('SADD', p .. node .. ':occ', c) == 1 and not elsewhere(':occ', c) then
    out[#out + 1] = {t = 'o', c = c}
  end
  redis.call('PEXPIRE', p .. node .. ':occ', life)
end
local function vacate(c)
  if redis.call('SREM', p .. node .. ':occ', c) == 1 and not elsewhere(':occ', c) then
    out[#out + 1] = {t = 'v', c = c}
  end
end
local function join(c, u, info)
  local k = p .. node .. ':m:' .. c
  if redis.call('SADD', k, u) == 1 then
    redis.call('SADD', p .. node .. ':mc', c)
    if not elsewhere(':m:' .. c, u) then
      redis.call('HSET', p .. 'info:' .. c, u, info)
      out[#out + 1] = {t = 'a', c = c, u = u, i = info}
    end
  end
  redis.call('PEXPIRE', k, life)
  redis.call('PEXPIRE', p .. node .. ':mc', life)
  redis.call('PEXPIRE', p .. 'info:' .. c, life)
end
local function leave(c, u)
  local k = p .. node .. ':m:' .. c
  if redis.call('SREM', k, u) == 1 then
    if redis.call('SCARD', k) == 0 then redis.call('SREM', p .. node .. ':mc', c) end
    if not elsewhere(':m:' .. c, u) then
      redis.call('HDEL', p .. 'info:' .. c, u)
      out[#out + 1] = {t = 'r', c = c, u = u}
    end
  end
end
local function finish()
  if #out == 0 then return '[]' end
  for _, e in ipairs(out) do
    if e.t == 'a' or e.t == 'r' then redis.call('PUBLISH', control, 'member ' .. node .. ' ' .. cjson.encode(e)) end
  end
  return cjson.encode(out)
end
)lua";

// ARGV[4] o|v|a|r, ARGV[5] channel, ARGV[6] user, ARGV[7] info.
inline constexpr const char* change_lua = R"lua(
local op, c = ARGV[4], ARGV[5]
if op == 'o' then occupy(c) elseif op == 'v' then vacate(c)
elseif op == 'a' then join(c, ARGV[6], ARGV[7]) else leave(c, ARGV[6]) end
return finish()
)lua";

// ARGV[4] silent after (ms). Records the beat, keeps this node's keys alive, and reaps the nodes
// silent for longer: everything they held leaves. {1 if this node was not listed, changes}.
inline constexpr const char* beat_lua = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local self = node
local fresh = redis.call('ZADD', p .. 'nodes', now, self)
for _, c in ipairs(redis.call('SMEMBERS', p .. self .. ':mc')) do
  redis.call('PEXPIRE', p .. self .. ':m:' .. c, life)
  redis.call('PEXPIRE', p .. 'info:' .. c, life)
end
redis.call('PEXPIRE', p .. self .. ':occ', life)
redis.call('PEXPIRE', p .. self .. ':mc', life)
for _, dead in ipairs(redis.call('ZRANGEBYSCORE', p .. 'nodes', '-inf', now - tonumber(ARGV[4]))) do
  redis.call('ZREM', p .. 'nodes', dead)
  node = dead
  for _, c in ipairs(redis.call('SMEMBERS', p .. dead .. ':mc')) do
    for _, u in ipairs(redis.call('SMEMBERS', p .. dead .. ':m:' .. c)) do leave(c, u) end
    redis.call('DEL', p .. dead .. ':m:' .. c)
  end
  for _, c in ipairs(redis.call('SMEMBERS', p .. dead .. ':occ')) do vacate(c) end
  redis.call('DEL', p .. dead .. ':occ', p .. dead .. ':mc')
end
node = self
return {fresh, finish()}
)lua";

// ARGV[4] this node's state as JSON {"o": [channel...], "m": [[channel, user, info]...]}:
// what Redis lacks is added, what it has beyond it removed, each with its changes, in Pusher's
// order (members leave before their channel is vacated; a channel is occupied before members
// are added).
inline constexpr const char* rewrite_lua = R"lua(
local state = cjson.decode(ARGV[4])
local want_o, want_m = {}, {}
for _, c in ipairs(state.o) do want_o[c] = true end
for _, m in ipairs(state.m) do want_m[m[1] .. '\0' .. m[2]] = true end
for _, c in ipairs(redis.call('SMEMBERS', p .. node .. ':mc')) do
  for _, u in ipairs(redis.call('SMEMBERS', p .. node .. ':m:' .. c)) do
    if not want_m[c .. '\0' .. u] then leave(c, u) end
  end
end
for _, c in ipairs(redis.call('SMEMBERS', p .. node .. ':occ')) do
  if not want_o[c] then vacate(c) end
end
for _, c in ipairs(state.o) do occupy(c) end
for _, m in ipairs(state.m) do join(m[1], m[2], m[3]) end
return finish()
)lua";

// Reads. ARGV[1] session TTL (ms: presence's live nodes), ARGV[2] what, ARGV[3] its argument.
//   c <channel>: {sessions, users};  l <prefix>: {name, sessions, users, ...} by name;
//   m <channel>: {user, info, ...}.
inline constexpr const char* read_lua = R"lua(
local p = '{ringcast}:pusher:'
if ARGV[2] == 'm' then return redis.call('HGETALL', p .. 'info:' .. ARGV[3]) end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nodes = redis.call('ZRANGEBYSCORE', '{ringcast}:presence:nodes', now - tonumber(ARGV[1]), '+inf')
local function ranking(n) return '{ringcast}:presence:' .. n .. ':channels' end
if ARGV[2] == 'c' then
  local sessions = 0
  for _, n in ipairs(nodes) do sessions = sessions + (tonumber(redis.call('ZSCORE', ranking(n), ARGV[3])) or 0) end
  return {sessions, redis.call('HLEN', p .. 'info:' .. ARGV[3])}
end
local sum, names, prefix = {}, {}, ARGV[3]
for _, n in ipairs(nodes) do
  local z = redis.call('ZRANGE', ranking(n), 0, -1, 'WITHSCORES')
  for i = 1, #z, 2 do
    if string.sub(z[i], 1, #prefix) == prefix then
      if not sum[z[i]] then sum[z[i]] = 0; names[#names + 1] = z[i] end
      sum[z[i]] = sum[z[i]] + tonumber(z[i + 1])
    end
  end
end
table.sort(names)
local answer = {}
for _, name in ipairs(names) do
  if sum[name] > 0 then
    answer[#answer + 1] = name
    answer[#answer + 1] = sum[name]
    answer[#answer + 1] = redis.call('HLEN', p .. 'info:' .. name)
  end
end
return answer
)lua";

}  // namespace ringcast::pusher_lua
