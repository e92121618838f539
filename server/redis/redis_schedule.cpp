#include "redis/redis_schedule.hpp"

#include <hiredis/hiredis.h>

#include <charconv>

#include "core/log.hpp"
#include "core/message.hpp"
#include "protocol/admin_request.hpp"
#include "redis/redis_bus.hpp"
#include "redis/redis_stream.hpp"

namespace ringcast {
namespace {

const std::string waiting_key = "{ringcast}:scheduled";
const std::string last_schedule_key = "{ringcast}:scheduled:last_id";

// How many due promotions one claim takes (the rest at once, by another claim).
constexpr std::size_t claim_batch = 100;

// KEYS: waiting, last schedule id. ARGV: limit, at, request, to, target, data, ttl ms, spread ms,
// sticky ("1"/"0"), Pusher event name (empty: the default). Returns the new schedule id, or nil
// when `limit` already wait.
constexpr const char* add_script = R"lua(
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return false end
local id = string.format('%x', redis.call('INCR', KEYS[2]))
redis.call('HSET', '{ringcast}:scheduled:item:' .. id, 'request', ARGV[3], 'to', ARGV[4],
           'target', ARGV[5], 'data', ARGV[6], 'ttl', ARGV[7], 'spread', ARGV[8],
           'sticky', ARGV[9], 'event', ARGV[10])
redis.call('ZADD', KEYS[1], ARGV[2], id)
return id
)lua";

// KEYS: waiting. Returns {id, at, request, id, at, request, …}, earliest first.
constexpr const char* list_script = R"lua(
local ids = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')
local out = {}
for i = 1, #ids, 2 do
  local request = redis.call('HGET', '{ringcast}:scheduled:item:' .. ids[i], 'request')
  if request then
    out[#out + 1] = ids[i]; out[#out + 1] = ids[i + 1]; out[#out + 1] = request
  end
end
return out
)lua";

// KEYS: waiting. ARGV: schedule id. 1 if it waited (and now will not be published), else 0.
constexpr const char* cancel_script = R"lua(
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then return 0 end
redis.call('DEL', '{ringcast}:scheduled:item:' .. ARGV[1])
return 1
)lua";

// KEYS: waiting, last id, stream. ARGV: node clock (µs), stream maxlen, batch.
// Due means `at` <= Redis's clock (ms, rounded down): never early. The message's `ts` is that
// clock too, and its expiry counts from it. Returns {taken, left, ms until the earliest left or
// -1}.
const std::string claim_script = std::string(stream_append_lua) + R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', now, 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(due) do
  local item = '{ringcast}:scheduled:item:' .. id
  local f = redis.call('HMGET', item, 'to', 'target', 'data', 'ttl', 'spread', 'sticky', 'event')
  redis.call('ZREM', KEYS[1], id)
  redis.call('DEL', item)
  if f[3] then
    local ttl = tonumber(f[4]) or 0
    local expires = ttl > 0 and string.format('%.0f', now + ttl) or '0'
    append(KEYS[2], KEYS[3], ARGV[1], ARGV[2], string.format('%.0f', now), f[1], f[2], f[3], '',
           expires, f[5], f[6], f[7] or '', '', '')
  end
end
local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
local wait = -1
if first[2] then wait = math.max(0, tonumber(first[2]) - now) end
return {#due, redis.call('ZCARD', KEYS[1]), wait}
)lua";

bool failed(const redisReply* r) {
  return !r || r->type == REDIS_REPLY_ERROR;
}

std::optional<std::int64_t> to_i64(std::string_view s) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

}  // namespace

redis_schedule::redis_schedule(redis_bus& bus, std::size_t limit, std::size_t history)
    : bus_(bus), limit_(limit), history_(history) {}

void redis_schedule::add(const std::string& request_json, std::int64_t at_ms,
                         std::function<void(added, std::string)> done) {
  // Its spread was checked against --max-spread when it was accepted.
  const auto req = parse_publish_request(request_json, std::chrono::milliseconds::max());
  if (!req) {  // it was accepted: only a bug gets here
    log_warn("scheduled publish does not parse ({}): {}", req.error, request_json);
    return done(added::unavailable, {});
  }
  const addressee to = addressee_of(*req.value);
  bus_.command(
      {"EVAL", add_script, "2", waiting_key, last_schedule_key, std::to_string(limit_),
       std::to_string(at_ms), request_json, std::string(name_of(to.to)), to.target,
       req.value->data_json, std::to_string(req.value->ttl ? req.value->ttl->count() : 0),
       std::to_string(req.value->spread.count()), req.value->sticky ? "1" : "0", req.value->event},
      [done = std::move(done)](const redisReply* r) {
        if (failed(r)) return done(added::unavailable, {});
        if (r->type != REDIS_REPLY_STRING) return done(added::too_many, {});
        done(added::ok, std::string(reply_text(r)));
      });
}

void redis_schedule::list(std::function<void(std::optional<std::vector<waiting>>)> done) {
  bus_.command({"EVAL", list_script, "1", waiting_key},
               [done = std::move(done)](const redisReply* r) {
                 if (failed(r) || r->type != REDIS_REPLY_ARRAY || r->elements % 3 != 0)
                   return done(std::nullopt);
                 std::vector<waiting> out;
                 out.reserve(r->elements / 3);
                 for (std::size_t i = 0; i < r->elements; i += 3) {
                   const auto at = to_i64(reply_text(r->element[i + 1]));
                   out.push_back({std::string(reply_text(r->element[i])), at.value_or(0),
                                  std::string(reply_text(r->element[i + 2]))});
                 }
                 done(std::move(out));
               });
}

void redis_schedule::cancel(const std::string& id, std::function<void(std::optional<bool>)> done) {
  bus_.command({"EVAL", cancel_script, "1", waiting_key, id},
               [done = std::move(done)](const redisReply* r) {
                 if (failed(r) || r->type != REDIS_REPLY_INTEGER) return done(std::nullopt);
                 done(r->integer == 1);
               });
}

void redis_schedule::claim(std::function<void(std::optional<claimed>)> done) {
  bus_.command(
      {"EVAL", claim_script, "3", waiting_key, last_id_key, stream_key, now_micros(bus_.clock()),
       std::to_string(history_), std::to_string(claim_batch)},
      [done = std::move(done)](const redisReply* r) {
        const auto integers = [](const redisReply* a) {
          for (std::size_t i = 0; i < a->elements; ++i)
            if (a->element[i]->type != REDIS_REPLY_INTEGER) return false;
          return true;
        };
        if (failed(r) || r->type != REDIS_REPLY_ARRAY || r->elements != 3 || !integers(r)) {
          if (r && r->type == REDIS_REPLY_ERROR)
            log_warn("redis: claiming scheduled publishes failed: {}", reply_text(r));
          return done(std::nullopt);
        }
        claimed c;
        c.taken = static_cast<std::size_t>(std::max<long long>(0, r->element[0]->integer));
        c.more = c.taken >= claim_batch;
        c.waiting = static_cast<std::size_t>(std::max<long long>(0, r->element[1]->integer));
        if (r->element[2]->integer >= 0)
          c.next_due = std::chrono::milliseconds(r->element[2]->integer);
        done(c);
      });
}

}  // namespace ringcast
