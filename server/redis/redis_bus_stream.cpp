// The bus's stream (redis_bus.hpp): the history read at start-up, the entries read in order and
// handed to the node, and the appends of a publish and of a take-down.
#include <hiredis/hiredis.h>

#include <algorithm>
#include <boost/asio/post.hpp>

#include "core/log.hpp"
#include "redis/redis_bus.hpp"
#include "redis/redis_stream.hpp"

namespace ringcast {

namespace asio = boost::asio;

namespace {

// KEYS: last id, stream. ARGV: as append's after its two keys (redis_stream.hpp).
const std::string publish_script =
    std::string(stream_append_lua) +
    "return append(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], "
    "ARGV[7], ARGV[8], ARGV[9], ARGV[10], ARGV[11], ARGV[12], ARGV[13])";

// KEYS: the sticky set. Forgets those whose expiry has passed (Redis's clock) and returns the
// others as stream entries: {{"0-0", {field, value, ...}}, ...}.
constexpr const char* in_force_script = R"lua(
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local out = {}
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local f = redis.call('HGETALL', KEYS[1] .. ':' .. id)
  if #f > 0 then out[#out + 1] = {'0-0', f} end
end
return out
)lua";

// KEYS: stream, sticky set. ARGV: stream maxlen, message id.
constexpr const char* take_down_script = R"lua(
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', 'takedown', ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[2])
redis.call('DEL', KEYS[2] .. ':' .. ARGV[2])
return 1
)lua";

}  // namespace

void redis_bus::load_history() {
  reader_->command(
      {"XREVRANGE", stream_key, "+", "-", "COUNT", std::to_string(history_)},
      [this](const redisReply* r) {
        if (follow_moved(r)) return;
        if (!r || r->type != REDIS_REPLY_ARRAY) return;  // lost: retried on reconnect
        std::vector<message_ptr> retained;
        std::vector<std::uint64_t> taken_down;
        for (std::size_t i = r->elements; i-- > 0;) {
          if (auto e = parse_entry(r->element[i])) {
            last_entry_ = e->entry_id;
            if (e->msg)
              retained.push_back(std::move(e->msg));
            else
              taken_down.push_back(e->take_down);
          }
        }
        // Taken down before this node started: expired, nobody here has it.
        for (const auto& m : retained) {
          if (std::find(taken_down.begin(), taken_down.end(), m->id) != taken_down.end())
            m->expired.store(true, std::memory_order_relaxed);
        }
        load_in_force(std::move(retained));
      });
}

// The sticky messages in force that the stream has evicted join the seeded history's: a node
// started after --history more publishes still has them in force.
void redis_bus::load_in_force(std::vector<message_ptr> retained) {
  reader_->command({"EVAL", in_force_script, "1", sticky_key},
                   [this, retained = std::move(retained)](const redisReply* r) mutable {
                     if (follow_moved(r)) return;
                     if (!r || r->type != REDIS_REPLY_ARRAY) return;  // lost: retried on reconnect
                     std::vector<message_ptr> beyond;
                     for (std::size_t i = 0; i < r->elements; ++i) {
                       auto e = parse_entry(r->element[i]);
                       if (!e || !e->msg) continue;
                       const auto id = e->msg->id;
                       if (std::none_of(retained.begin(), retained.end(),
                                        [id](const message_ptr& m) { return m->id == id; }))
                         beyond.push_back(std::move(e->msg));
                     }
                     std::sort(
                         beyond.begin(), beyond.end(),
                         [](const message_ptr& a, const message_ptr& b) { return a->id < b->id; });
                     seeded_ = true;
                     hooks_.seed_history(std::move(retained));
                     if (hooks_.seed_in_force) hooks_.seed_in_force(std::move(beyond));
                     read_stream();
                   });
}

void redis_bus::read_stream() {
  reader_->command({"XREAD", "COUNT", "512", "BLOCK", "2000", "STREAMS", stream_key, last_entry_},
                   [this](const redisReply* r) {
                     if (!r) return;  // lost: reading resumes from last_entry_ on reconnect
                     if (follow_moved(r)) return;
                     on_entries(r);
                     read_stream();
                   });
}

void redis_bus::on_entries(const redisReply* reply) {
  if (reply->type != REDIS_REPLY_ARRAY) return;  // nil: BLOCK timed out with nothing new
  for (std::size_t s = 0; s < reply->elements; ++s) {
    const redisReply* stream = reply->element[s];
    if (stream->type != REDIS_REPLY_ARRAY || stream->elements != 2) continue;
    const redisReply* entries = stream->element[1];
    for (std::size_t i = 0; i < entries->elements; ++i) {
      auto e = parse_entry(entries->element[i]);
      if (!e) {
        if (auto id = entry_id_of(entries->element[i])) last_entry_ = std::move(*id);
        continue;
      }
      last_entry_ = e->entry_id;
      if (!e->msg) {
        hooks_.take_down(e->take_down);
        continue;
      }
      std::function<void(std::size_t)> counted = [](std::size_t) {};
      if (auto waiting = awaiting_delivery_.find(e->token); waiting != awaiting_delivery_.end()) {
        counted = [done = std::move(waiting->second), id = e->msg->id](std::size_t n) {
          done(receipt{id, n});
        };
        awaiting_delivery_.erase(waiting);
      }
      hooks_.deliver(e->msg, std::move(counted));
    }
  }
}

void redis_bus::publish(const publish_request& req,
                        std::function<void(std::optional<receipt>)> done) {
  if (!up()) {
    asio::post(ctx_, [done = std::move(done)] { done(std::nullopt); });
    return;
  }
  const addressee to = addressee_of(req);
  const std::int64_t ts_ms = clock_.unix_ms();
  const std::string ts = std::to_string(ts_ms);
  const std::string expires = std::to_string(req.ttl ? ts_ms + req.ttl->count() : 0);
  // The reply goes out when this node has read the entry back and delivered it, so that
  // `recipients` is known; the token finds the waiting reply whichever arrives first.
  std::string token = fmt::format("{}:{}", node_id_, ++publish_seq_);
  awaiting_delivery_[token] = std::move(done);
  commands_->command({"EVAL", publish_script, "2", last_id_key, stream_key, now_micros(clock_),
                      std::to_string(history_), ts, std::string(name_of(to.to)), to.target,
                      req.data_json, token, expires, std::to_string(req.spread.count()),
                      req.sticky ? "1" : "0", req.event, req.except_socket, req.sender_user_id},
                     [this, token](const redisReply* r) {
                       if (r && r->type != REDIS_REPLY_ERROR) return;
                       if (!follow_moved(r) && r)
                         log_warn("redis: publish failed: {}", reply_text(r));
                       // A master demoted to a replica (a failover we have not heard of yet):
                       // find the master again.
                       if (r && reply_text(r).starts_with("READONLY") && sentinel_)
                         asio::post(ctx_, [this] { drop_connections(); });
                       auto waiting = awaiting_delivery_.find(token);
                       if (waiting == awaiting_delivery_.end()) return;
                       auto fail = std::move(waiting->second);
                       awaiting_delivery_.erase(waiting);
                       fail(std::nullopt);
                     });
}

void redis_bus::announce_take_down(std::uint64_t id, std::function<void(bool)> done) {
  if (!up()) {
    asio::post(ctx_, [done = std::move(done)] { done(false); });
    return;
  }
  commands_->command({"EVAL", take_down_script, "2", stream_key, sticky_key,
                      std::to_string(history_), std::to_string(id)},
                     [this, done = std::move(done)](const redisReply* r) {
                       follow_moved(r);
                       done(r && r->type != REDIS_REPLY_ERROR);
                     });
}

}  // namespace ringcast
