#include "redis_bus.hpp"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <charconv>
#include <random>

#include "log.hpp"
#include "redis_stream.hpp"

namespace ringcast {

namespace asio = boost::asio;

namespace {

// All keys under the hash tag {ringcast}: see redis_stream.hpp.
const std::string control_channel = "ringcast:control";
const std::string session_prefix = "{ringcast}:session:";

// While a session has a connection its record must not expire under it; this bounds how long a
// record outlives a node that died without releasing it.
constexpr std::chrono::hours live_session_record{24};

// KEYS: last id, stream. ARGV: as append's after its two keys (redis_stream.hpp).
const std::string publish_script =
    std::string(stream_append_lua) +
    "return append(KEYS[1], KEYS[2], ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], "
    "ARGV[7], ARGV[8], ARGV[9], ARGV[10])";

// KEYS: session record. ARGV: node, expiry (ms), control channel, session key.
constexpr const char* claim_script = R"lua(
local previous = redis.call('HGET', KEYS[1], 'node')
redis.call('HSET', KEYS[1], 'node', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
if previous and previous ~= ARGV[1] then
  redis.call('PUBLISH', ARGV[3], 'claim ' .. ARGV[1] .. ' ' .. ARGV[4])
end
return previous and 1 or 0
)lua";

// KEYS: session record. ARGV: node, TTL (ms). Only the node holding the session shortens it.
constexpr const char* release_script = R"lua(
if redis.call('HGET', KEYS[1], 'node') == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
)lua";

std::string random_node_id() {
  std::random_device rd;
  return fmt::format("{:08x}", rd());
}

}  // namespace

redis_bus::redis_bus(asio::io_context& ctx, const loop_clock& clock, redis_url url,
                     std::size_t history, std::chrono::milliseconds session_ttl, node_hooks hooks)
    : ctx_(ctx),
      clock_(clock),
      url_(std::move(url)),
      history_(history),
      session_ttl_(session_ttl),
      hooks_(std::move(hooks)),
      node_id_(random_node_id()),
      given_{url_.host, url_.port},
      retry_(ctx) {}

void redis_bus::start() {
  if (!url_.sentinels.empty()) {
    std::string sentinels;
    for (const auto& s : url_.sentinels)
      sentinels += fmt::format("{}{}:{}", sentinels.empty() ? "" : ",", s.host, s.port);
    log_info("redis master '{}' from Sentinels {} (db {}): node {}", url_.master_name, sentinels,
             url_.db, node_id_);
    sentinel_ = std::make_unique<redis_sentinel>(ctx_, url_);
    sentinel_->watch([this](redis_endpoint master) { on_switch(master); });
  } else {
    log_info("redis {}:{}/{}: node {}", url_.host, url_.port, url_.db, node_id_);
  }
  connect_all();
}

// With Sentinel, each (re)connect asks where the master is first.
void redis_bus::connect_all() {
  if (!sentinel_) return connect_to_master();
  sentinel_->resolve([this](std::optional<redis_endpoint> master, std::string why) {
    if (!master)
      return on_lost(
          fmt::format("redis: no master '{}' from the Sentinels: {}", url_.master_name, why));
    if (master->host != url_.host || master->port != url_.port)
      log_info("redis: master '{}' is {}:{}", url_.master_name, master->host, master->port);
    url_.host = master->host;
    url_.port = master->port;
    connect_to_master();
  });
}

// A Sentinel announced a failover: drop the connections to the old master at once (it may still
// be up, demoted to a replica that refuses writes) and connect to the new one without back-off.
void redis_bus::on_switch(const redis_endpoint& master) {
  if (master.host == url_.host && master.port == url_.port && up()) return;
  backoff_ = std::chrono::milliseconds(0);
  drop_connections();
}

void redis_bus::drop_connections() {
  if (retry_pending_) {
    // Already waiting to reconnect: do it now.
    retry_.cancel();
    retry_pending_ = false;
    connect_all();
    return;
  }
  for (auto* c : {commands_.get(), reader_.get(), control_.get()})
    if (c) c->abort();
}

void redis_bus::connect_to_master() {
  // A slow server gets as long to answer as the back-off waits, and at least a second.
  const auto timeout = std::max(backoff_, std::chrono::milliseconds(1000));
  commands_ = std::make_unique<redis_connection>(ctx_, url_, timeout);
  reader_ = std::make_unique<redis_connection>(ctx_, url_, timeout);
  control_ = std::make_unique<redis_connection>(ctx_, url_, timeout);
  auto on_up = [this] {
    if (!commands_->up() || !reader_->up() || !control_->up()) return;
    up_.store(true, std::memory_order_relaxed);
    following_moved_ = false;
    backoff_ = std::chrono::milliseconds(100);
    {
      std::lock_guard lock(problem_mutex_);
      problem_.clear();
    }
    if (failed_attempts_ == 0) {
      log_info("redis {}:{}: connected", url_.host, url_.port);
    } else {
      log_info("redis {}:{}: connected after {} failed attempts", url_.host, url_.port,
               failed_attempts_);
    }
    last_logged_.clear();
    unlogged_failures_ = 0;
    failed_attempts_ = 0;
    control_->subscribe(control_channel, [this](const redisReply* r) { on_control(r); });
    for (const auto& f : connected_listeners_)
      f();
    if (seeded_) {
      read_stream();
    } else {
      load_history();
    }
  };
  auto on_down = [this, where = fmt::format("redis {}:{}", url_.host, url_.port)](
                     const std::string& why) { on_lost(where + ": " + why); };
  commands_->connect(on_up, on_down);
  reader_->connect(on_up, on_down);
  control_->connect(on_up, on_down);
}

// Any of the three connections failing takes the bus down; all three are made again after a
// back-off (100 ms doubling to 5 s). Connected clients are served meanwhile.
std::string redis_bus::problem() const {
  std::lock_guard lock(problem_mutex_);
  return problem_;
}

void redis_bus::log_failure(const std::string& why) {
  constexpr std::chrono::milliseconds repeat_same_cause{5000};
  ++failed_attempts_;
  const auto now = clock_.now();
  if (why == last_logged_ && now - last_logged_at_ < repeat_same_cause) {
    ++unlogged_failures_;
    return;
  }
  if (why == last_logged_) {
    log_warn("{}; still failing ({} more attempts); retrying in {} ms", why, unlogged_failures_ + 1,
             backoff_.count());
  } else {
    log_warn("{}; retrying in {} ms", why, backoff_.count());
  }
  last_logged_ = why;
  last_logged_at_ = now;
  unlogged_failures_ = 0;
}

void redis_bus::on_lost(std::string why) {
  if (retry_pending_) return;
  retry_pending_ = true;
  // A Cluster primary we were MOVED to is gone (a failover): start again from the address given,
  // which redirects to the new one.
  if (!sentinel_ && !following_moved_) {
    url_.host = given_.host;
    url_.port = given_.port;
  }
  {
    std::lock_guard lock(problem_mutex_);
    problem_ = why;
  }
  if (up_.exchange(false, std::memory_order_relaxed)) {
    log_warn("{}; reconnecting", why);
    last_logged_ = why;
    last_logged_at_ = clock_.now();
    reconnects_.fetch_add(1, std::memory_order_relaxed);
  } else {
    log_failure(why);
  }
  retry_.expires_after(backoff_);
  backoff_ =
      std::clamp(backoff_ * 2, std::chrono::milliseconds(100), std::chrono::milliseconds(5000));
  retry_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;  // cancelled by drop_connections(), which connects itself
    retry_pending_ = false;
    connect_all();
  });
}

// A Redis Cluster node that does not hold the {ringcast} slot answers "MOVED <slot> <ip>:<port>":
// reconnect there (all keys are in that one slot). True if `r` was such an answer.
bool redis_bus::follow_moved(const redisReply* r) {
  if (!r || r->type != REDIS_REPLY_ERROR || !reply_text(r).starts_with("MOVED ")) return false;
  const std::string_view text = reply_text(r);
  const auto space = text.rfind(' ');
  const auto colon = text.rfind(':');
  std::uint16_t port = 0;
  if (colon == std::string_view::npos || colon < space ||
      std::from_chars(text.data() + colon + 1, text.data() + text.size(), port).ec != std::errc{})
    return false;
  const std::string host(text.substr(space + 1, colon - space - 1));
  if (sentinel_ || (host == url_.host && port == url_.port)) {
    log_warn("redis: {}", text);  // not ours to follow
    return true;
  }
  log_info("redis: the {{ringcast}} slot is on {}:{} (MOVED); reconnecting there", host, port);
  url_.host = host;
  url_.port = port;
  following_moved_ = true;
  backoff_ = std::chrono::milliseconds(0);
  asio::post(ctx_, [this] { drop_connections(); });
  return true;
}

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

namespace {

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
      hooks_.deliver(std::move(e->msg), std::move(counted));
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
  commands_->command(
      {"EVAL", publish_script, "2", last_id_key, stream_key, now_micros(clock_),
       std::to_string(history_), ts, std::string(name_of(to.to)), to.target, req.data_json, token,
       expires, std::to_string(req.spread.count()), req.sticky ? "1" : "0"},
      [this, token](const redisReply* r) {
        if (r && r->type != REDIS_REPLY_ERROR) return;
        if (!follow_moved(r) && r) log_warn("redis: publish failed: {}", reply_text(r));
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

void redis_bus::announce_kick(const std::string& user, std::function<void(bool)> done) {
  if (!up()) {
    asio::post(ctx_, [done = std::move(done)] { done(false); });
    return;
  }
  commands_->command(
      {"PUBLISH", control_channel, fmt::format("kick {} {}", node_id_, user)},
      [done = std::move(done)](const redisReply* r) { done(r && r->type != REDIS_REPLY_ERROR); });
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

void redis_bus::claim_session(const std::string& key, std::function<void(bool)> done) {
  if (!up()) {
    asio::post(ctx_, [done = std::move(done)] { done(false); });
    return;
  }
  const auto expiry = std::chrono::duration_cast<std::chrono::milliseconds>(live_session_record);
  commands_->command({"EVAL", claim_script, "1", session_prefix + key, node_id_,
                      std::to_string(expiry.count()), control_channel, key},
                     [this, done = std::move(done)](const redisReply* r) {
                       follow_moved(r);
                       done(r && r->type == REDIS_REPLY_INTEGER && r->integer == 1);
                     });
}

void redis_bus::command(const std::vector<std::string>& args,
                        std::function<void(const redisReply*)> done) {
  if (!up()) {
    asio::post(ctx_, [done = std::move(done)] { done(nullptr); });
    return;
  }
  commands_->command(args, std::move(done));
}

void redis_bus::release_session(const std::string& key) {
  if (!up()) return;  // the record then expires at its live-session bound
  commands_->command({"EVAL", release_script, "1", session_prefix + key, node_id_,
                      std::to_string(session_ttl_.count())},
                     [](const redisReply*) {});
}

void redis_bus::on_control(const redisReply* r) {
  // ["message", channel, "<verb> <node> <argument>"]; the subscribe confirmation is skipped.
  if (!r || r->type != REDIS_REPLY_ARRAY || r->elements != 3 ||
      reply_text(r->element[0]) != "message") {
    return;
  }
  const std::string_view payload = reply_text(r->element[2]);
  const auto first = payload.find(' ');
  const auto second = payload.find(' ', first + 1);
  if (first == std::string_view::npos || second == std::string_view::npos) return;
  const std::string_view verb = payload.substr(0, first);
  const std::string_view node = payload.substr(first + 1, second - first - 1);
  std::string argument(payload.substr(second + 1));
  if (node == node_id_) return;  // our own announcement: already done here
  if (verb == "kick") {
    hooks_.kick(std::move(argument));
  } else if (verb == "claim") {
    hooks_.evict(std::move(argument));
  }
}

}  // namespace ringcast
