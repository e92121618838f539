#include "redis/redis_presence.hpp"

#include <hiredis/hiredis.h>

#include <boost/asio/post.hpp>

#include "core/session.hpp"
#include "redis/redis_bus.hpp"

namespace ringcast {
namespace {

namespace asio = boost::asio;

const std::string nodes_key = "{ringcast}:presence:nodes";

// ARGV: node, user, delta, key ttl ms, 1 if the user's own count changes (connect/disconnect),
// then the channels.
constexpr const char* change_script = R"lua(
local p = '{ringcast}:presence:' .. ARGV[1] .. ':'
local user, d, ttl = ARGV[2], tonumber(ARGV[3]), ARGV[4]
local function bump(key)
  if redis.call('HINCRBY', key, user, d) <= 0 then redis.call('HDEL', key, user) end
  redis.call('PEXPIRE', key, ttl)
end
if ARGV[5] == '1' then bump(p .. 'u') end
for i = 6, #ARGV do
  bump(p .. 'c:' .. ARGV[i])
  if tonumber(redis.call('ZINCRBY', p .. 'channels', d, ARGV[i])) <= 0 then
    redis.call('ZREM', p .. 'channels', ARGV[i])
  end
  redis.call('PEXPIRE', p .. 'channels', ttl)
end
return 1
)lua";

// KEYS[1] nodes; ARGV: node, key ttl ms. Records the beat (Redis's clock: nodes' clocks may
// differ), keeps this node's keys alive, forgets nodes silent for longer than a key's life.
constexpr const char* beat_script = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
local p = '{ringcast}:presence:' .. ARGV[1] .. ':'
for _, c in ipairs(redis.call('ZRANGE', p .. 'channels', 0, -1)) do
  redis.call('PEXPIRE', p .. 'c:' .. c, ARGV[2])
end
redis.call('PEXPIRE', p .. 'u', ARGV[2])
redis.call('PEXPIRE', p .. 'channels', ARGV[2])
return 1
)lua";

// KEYS[1] nodes; ARGV: session ttl ms, 'c' | 'u' | 'top', channel | user | N.
// c: {users, sessions}; u: {sessions}; top: {name, users, sessions, name, …}, most sessions first.
constexpr const char* query_script = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local nodes = redis.call('ZRANGEBYSCORE', KEYS[1], now - tonumber(ARGV[1]), '+inf')
local function channel(c)
  local seen, users, sessions = {}, 0, 0
  for _, n in ipairs(nodes) do
    local h = redis.call('HGETALL', '{ringcast}:presence:' .. n .. ':c:' .. c)
    for i = 1, #h, 2 do
      sessions = sessions + tonumber(h[i + 1])
      if not seen[h[i]] then seen[h[i]] = true; users = users + 1 end
    end
  end
  return users, sessions
end
if ARGV[2] == 'c' then
  local users, sessions = channel(ARGV[3])
  return {users, sessions}
elseif ARGV[2] == 'u' then
  local sessions = 0
  for _, n in ipairs(nodes) do
    sessions = sessions + (tonumber(redis.call('HGET', '{ringcast}:presence:' .. n .. ':u', ARGV[3])) or 0)
  end
  return {sessions}
end
local sum, names = {}, {}
for _, n in ipairs(nodes) do
  local z = redis.call('ZRANGE', '{ringcast}:presence:' .. n .. ':channels', 0, -1, 'WITHSCORES')
  for i = 1, #z, 2 do
    if not sum[z[i]] then sum[z[i]] = 0; names[#names + 1] = z[i] end
    sum[z[i]] = sum[z[i]] + tonumber(z[i + 1])
  end
end
table.sort(names, function(a, b) if sum[a] ~= sum[b] then return sum[a] > sum[b] end return a < b end)
local out = {}
for i = 1, math.min(#names, tonumber(ARGV[3])) do
  local users, sessions = channel(names[i])
  out[#out + 1] = names[i]; out[#out + 1] = users; out[#out + 1] = sessions
end
return out
)lua";

// ARGV: node. Deletes the node's keys (before they are written again from its own counts).
constexpr const char* clear_script = R"lua(
local p = '{ringcast}:presence:' .. ARGV[1] .. ':'
for _, c in ipairs(redis.call('ZRANGE', p .. 'channels', 0, -1)) do redis.call('DEL', p .. 'c:' .. c) end
redis.call('DEL', p .. 'u', p .. 'channels')
return 1
)lua";

bool failed(const redisReply* r) {
  return !r || r->type == REDIS_REPLY_ERROR;
}

std::size_t number_at(const redisReply* r, std::size_t i) {
  const redisReply* e = r->element[i];
  return e->type == REDIS_REPLY_INTEGER && e->integer > 0 ? static_cast<std::size_t>(e->integer)
                                                          : 0;
}

}  // namespace

redis_presence::redis_presence(asio::io_context& bus_ctx, redis_bus& bus,
                               const presence_counts& local, std::chrono::milliseconds session_ttl)
    : ctx_(bus_ctx), bus_(bus), local_(local), ttl_(session_ttl), timer_(bus_ctx) {}

void redis_presence::start() {
  // A beat before Redis answers is lost, and a Redis that restarted has lost this node's keys:
  // write them and beat as soon as the bus is up, not a third of a session TTL later.
  bus_.on_connected([this] {
    stale_ = true;
    beat();
  });
  beat();
}

void redis_presence::stop() {
  timer_.cancel();
}

void redis_presence::beat() {
  if (stale_) rewrite();
  bus_.command(
      {"EVAL", beat_script, "1", nodes_key, bus_.node_id(), std::to_string(2 * ttl_.count())},
      [this](const redisReply* r) {
        if (failed(r)) stale_ = true;
      });
  timer_.expires_after(std::max(std::chrono::milliseconds(100), ttl_ / 3));
  timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec) beat();
  });
}

void redis_presence::change(const std::string& user, bool whole_session, int delta,
                            const std::vector<std::string>& channels) {
  std::vector<std::string> args{"EVAL",
                                change_script,
                                "0",
                                bus_.node_id(),
                                user,
                                std::to_string(delta),
                                std::to_string(2 * ttl_.count()),
                                whole_session ? "1" : "0"};
  args.insert(args.end(), channels.begin(), channels.end());
  asio::post(ctx_, [this, args = std::move(args), change = presence_counts::changes_seen()] {
    if (change <= written_up_to_) return;  // a rewrite since included it
    bus_.command(args, [this](const redisReply* r) {
      if (failed(r)) stale_ = true;
    });
  });
}

void redis_presence::rewrite() {
  stale_ = false;
  const auto all = local_.copy_all();
  written_up_to_ = all.changes;
  const std::string prefix = "{ringcast}:presence:" + bus_.node_id() + ":";
  const std::string ttl = std::to_string(2 * ttl_.count());
  auto check = [this](const redisReply* r) {
    if (failed(r)) stale_ = true;
  };
  bus_.command({"EVAL", clear_script, "0", bus_.node_id()}, check);
  auto write = [&](const std::string& key,
                   const std::vector<std::pair<std::string, std::size_t>>& counts) {
    if (counts.empty()) return;
    std::vector<std::string> args{"HSET", key};
    for (const auto& [user, n] : counts) {
      args.push_back(user);
      args.push_back(std::to_string(n));
    }
    bus_.command(args, check);
    bus_.command({"PEXPIRE", key, ttl}, check);
  };
  write(prefix + "u", all.users);
  std::vector<std::string> ranking{"ZADD", prefix + "channels"};
  for (const auto& [channel, users] : all.channels) {
    write(prefix + "c:" + channel, users);
    std::size_t sessions = 0;
    for (const auto& [user, n] : users)
      sessions += n;
    ranking.push_back(std::to_string(sessions));
    ranking.push_back(channel);
  }
  if (ranking.size() > 2) {
    bus_.command(ranking, check);
    bus_.command({"PEXPIRE", prefix + "channels", ttl}, check);
  }
}

void redis_presence::on_connect(const session& s, bool) {
  change(s.user(), true, 1, s.channels());
}
void redis_presence::on_disconnect(const session& s, std::string_view) {
  change(s.user(), true, -1, s.channels());
}
void redis_presence::on_subscribe(const session& s, const std::vector<std::string>& channels) {
  change(s.user(), false, 1, channels);
}
void redis_presence::on_unsubscribe(const session& s, const std::vector<std::string>& channels) {
  change(s.user(), false, -1, channels);
}

void redis_presence::query(const presence_query& q,
                           std::function<void(std::optional<presence_figures>)> done) {
  const char* kind = q.what == presence_query::kind::channel ? "c"
                     : q.what == presence_query::kind::user  ? "u"
                                                             : "top";
  const std::string arg = q.what == presence_query::kind::top ? std::to_string(q.top) : q.name;
  bus_.command({"EVAL", query_script, "1", nodes_key, std::to_string(ttl_.count()), kind, arg},
               [what = q.what, done = std::move(done)](const redisReply* r) {
                 if (failed(r) || r->type != REDIS_REPLY_ARRAY) return done(std::nullopt);
                 presence_figures f;
                 if (what == presence_query::kind::channel && r->elements == 2) {
                   f.users = number_at(r, 0);
                   f.sessions = number_at(r, 1);
                 } else if (what == presence_query::kind::user && r->elements == 1) {
                   f.sessions = number_at(r, 0);
                 } else if (what == presence_query::kind::top && r->elements % 3 == 0) {
                   for (std::size_t i = 0; i < r->elements; i += 3) {
                     const redisReply* name = r->element[i];
                     f.top.emplace_back(std::string(name->str, name->len),
                                        channel_presence{number_at(r, i + 1), number_at(r, i + 2)});
                   }
                 } else {
                   return done(std::nullopt);
                 }
                 done(std::move(f));
               });
}

}  // namespace ringcast
