#include "redis/redis_pusher.hpp"

#include <hiredis/hiredis.h>

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include "core/log.hpp"
#include "redis/redis_bus.hpp"

namespace ringcast {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;

// Every change script starts with these. ARGV[1] node, ARGV[2] key life (ms), ARGV[3] the control
// channel. `out` collects the cluster's changes: {t = o|v|a|r, c = channel, u = user, i = info}.
constexpr const char* common_lua = R"lua(
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
constexpr const char* change_lua = R"lua(
local op, c = ARGV[4], ARGV[5]
if op == 'o' then occupy(c) elseif op == 'v' then vacate(c)
elseif op == 'a' then join(c, ARGV[6], ARGV[7]) else leave(c, ARGV[6]) end
return finish()
)lua";

// ARGV[4] silent after (ms). Records the beat, keeps this node's keys alive, and reaps the nodes
// silent for longer: everything they held leaves. {1 if this node was not listed, changes}.
constexpr const char* beat_lua = R"lua(
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
constexpr const char* rewrite_lua = R"lua(
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
constexpr const char* read_lua = R"lua(
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

bool failed(const redisReply* r) {
  return !r || r->type == REDIS_REPLY_ERROR;
}

std::string text_of(const redisReply* r) {
  return r && r->str ? std::string(r->str, r->len) : std::string();
}

std::size_t count_of(const redisReply* r) {
  return r->type == REDIS_REPLY_INTEGER && r->integer > 0 ? static_cast<std::size_t>(r->integer)
                                                          : 0;
}

std::optional<pusher_cluster_change> change_of(const json::value& v) {
  const auto* e = v.if_object();
  if (!e) return std::nullopt;
  const auto field = [&](std::string_view name) {
    const auto* f = e->if_contains(name);
    return f && f->is_string() ? std::string(f->as_string()) : std::string();
  };
  using k = pusher_cluster_change::kind;
  const std::string t = field("t");
  pusher_cluster_change c{k::occupied, field("c"), {field("u"), field("i")}};
  if (t == "v")
    c.what = k::vacated;
  else if (t == "a")
    c.what = k::member_added;
  else if (t == "r")
    c.what = k::member_removed;
  else if (t != "o")
    return std::nullopt;
  if (c.member.user_info.empty()) c.member.user_info = "null";
  return c;
}

// A script's changes (its cjson text; an empty table is "{}" there).
std::vector<pusher_cluster_change> changes_of(std::string_view text) {
  std::vector<pusher_cluster_change> out;
  boost::system::error_code ec;
  const json::value v = json::parse(text, ec);
  if (ec || !v.is_array()) return out;
  for (const auto& e : v.as_array())
    if (auto c = change_of(e)) out.push_back(std::move(*c));
  return out;
}

}  // namespace

redis_pusher::redis_pusher(asio::io_context& bus_ctx, redis_bus& bus, pusher_channels& channels,
                           std::chrono::milliseconds session_ttl)
    : ctx_(bus_ctx), bus_(bus), channels_(channels), ttl_(session_ttl), timer_(bus_ctx) {}

void redis_pusher::start() {
  bus_.on_connected([this] {
    stale_ = true;
    beat();
  });
  beat();
}

void redis_pusher::stop() {
  timer_.cancel();
}

void redis_pusher::on_changes(const redisReply* r) {
  if (failed(r) || r->type != REDIS_REPLY_STRING) {
    stale_ = true;
    return;
  }
  channels_.cluster_changed(changes_of(text_of(r)));
}

void redis_pusher::change(std::vector<std::string> args) {
  std::vector<std::string> full{
      "EVAL",         std::string(common_lua) + change_lua, "0",
      bus_.node_id(), std::to_string(3 * ttl_.count()),     control_channel};
  full.insert(full.end(), std::make_move_iterator(args.begin()),
              std::make_move_iterator(args.end()));
  bus_.command(full, [this](const redisReply* r) {
    on_changes(r);
    in_flight_.fetch_sub(1, std::memory_order_release);
  });
}

void redis_pusher::node_occupancy(const std::string& channel, bool occupied) {
  in_flight_.fetch_add(1, std::memory_order_relaxed);
  asio::post(ctx_, [this, args = std::vector<std::string>{occupied ? "o" : "v", channel}] {
    change(args);
  });
}

void redis_pusher::node_member(const std::string& channel, const pusher_member& member,
                               bool joined) {
  in_flight_.fetch_add(1, std::memory_order_relaxed);
  std::vector<std::string> args{joined ? "a" : "r", channel, member.user_id, member.user_info};
  asio::post(ctx_, [this, args = std::move(args)] { change(args); });
}

void redis_pusher::beat() {
  if (stale_) rewrite();
  bus_.command({"EVAL", std::string(common_lua) + beat_lua, "0", bus_.node_id(),
                std::to_string(3 * ttl_.count()), control_channel, std::to_string(ttl_.count())},
               [this](const redisReply* r) {
                 if (failed(r) || r->type != REDIS_REPLY_ARRAY || r->elements != 2) {
                   stale_ = true;
                   return;
                 }
                 // Not listed after it was: reaped while alive, or Redis lost its data.
                 if (count_of(r->element[0]) == 1 && listed_) stale_ = true;
                 listed_ = true;
                 channels_.cluster_changed(changes_of(text_of(r->element[1])));
               });
  timer_.expires_after(std::max(std::chrono::milliseconds(100), ttl_ / 3));
  timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec) beat();
  });
}

void redis_pusher::rewrite() {
  stale_ = false;
  const pusher_node_state state = channels_.node_state();
  json::array occupied, members;
  for (const auto& c : state.occupied)
    occupied.emplace_back(c);
  for (const auto& [channel, m] : state.members)
    members.emplace_back(
        json::array{json::string(channel), json::string(m.user_id), json::string(m.user_info)});
  bus_.command(
      {"EVAL", std::string(common_lua) + rewrite_lua, "0", bus_.node_id(),
       std::to_string(3 * ttl_.count()), control_channel,
       json::serialize(json::object{{"o", std::move(occupied)}, {"m", std::move(members)}})},
      [this](const redisReply* r) { on_changes(r); });
}

void redis_pusher::on_published(std::string_view payload) {
  boost::system::error_code ec;
  const json::value v = json::parse(payload, ec);
  if (ec) return;
  if (auto c = change_of(v)) channels_.cluster_member(*c);
}

void redis_pusher::channel(const std::string& name, asio::any_io_executor origin,
                           std::function<void(std::optional<pusher::channel_counts>)> done) {
  asio::post(ctx_, [this, name, origin, done = std::move(done)]() mutable {
    bus_.command(
        {"EVAL", read_lua, "0", std::to_string(ttl_.count()), "c", name},
        [name, origin, done = std::move(done)](const redisReply* r) mutable {
          std::optional<pusher::channel_counts> answer;
          if (!failed(r) && r->type == REDIS_REPLY_ARRAY && r->elements == 2)
            answer = pusher::channel_counts{name, count_of(r->element[0]), count_of(r->element[1])};
          asio::post(origin,
                     [answer = std::move(answer), done = std::move(done)] { done(answer); });
        });
  });
}

void redis_pusher::channels(
    const std::string& prefix, asio::any_io_executor origin,
    std::function<void(std::optional<std::vector<pusher::channel_counts>>)> done) {
  asio::post(ctx_, [this, prefix, origin, done = std::move(done)]() mutable {
    bus_.command({"EVAL", read_lua, "0", std::to_string(ttl_.count()), "l", prefix},
                 [origin, done = std::move(done)](const redisReply* r) mutable {
                   std::optional<std::vector<pusher::channel_counts>> answer;
                   if (!failed(r) && r->type == REDIS_REPLY_ARRAY && r->elements % 3 == 0) {
                     answer.emplace();
                     for (std::size_t i = 0; i < r->elements; i += 3)
                       answer->push_back({text_of(r->element[i]), count_of(r->element[i + 1]),
                                          count_of(r->element[i + 2])});
                   }
                   asio::post(origin, [answer = std::move(answer), done = std::move(done)] {
                     done(answer);
                   });
                 });
  });
}

void redis_pusher::members(const std::string& channel, asio::any_io_executor origin,
                           std::function<void(std::optional<std::vector<pusher_member>>)> done) {
  asio::post(ctx_, [this, channel, origin, done = std::move(done)]() mutable {
    bus_.command({"EVAL", read_lua, "0", std::to_string(ttl_.count()), "m", channel},
                 [origin, done = std::move(done)](const redisReply* r) mutable {
                   std::optional<std::vector<pusher_member>> answer;
                   if (!failed(r) && r->type == REDIS_REPLY_ARRAY && r->elements % 2 == 0) {
                     answer.emplace();
                     for (std::size_t i = 0; i < r->elements; i += 2)
                       answer->push_back({text_of(r->element[i]), text_of(r->element[i + 1])});
                     std::sort(answer->begin(), answer->end(),
                               [](const auto& a, const auto& b) { return a.user_id < b.user_id; });
                   }
                   asio::post(origin, [answer = std::move(answer), done = std::move(done)] {
                     done(answer);
                   });
                 });
  });
}

}  // namespace ringcast
