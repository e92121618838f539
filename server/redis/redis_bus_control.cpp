// The bus's messages between nodes (redis_bus.hpp): who holds a session, and the kicks and
// claims announced over pub/sub `ringcast:control`.
#include <hiredis/hiredis.h>

#include <boost/asio/post.hpp>

#include "core/log.hpp"
#include "redis/redis_bus.hpp"
#include "redis/redis_stream.hpp"

namespace ringcast {

namespace asio = boost::asio;

namespace {

const std::string session_prefix = "{ringcast}:session:";

// While a session has a connection its record must not expire under it; this bounds how long a
// record outlives a node that died without releasing it.
constexpr std::chrono::hours live_session_record{24};

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

}  // namespace

void redis_bus::announce_kick(const std::string& user, std::function<void(bool)> done) {
  if (!up()) {
    asio::post(ctx_, [done = std::move(done)] { done(false); });
    return;
  }
  commands_->command(
      {"PUBLISH", control_channel, fmt::format("kick {} {}", node_id_, user)},
      [done = std::move(done)](const redisReply* r) { done(r && r->type != REDIS_REPLY_ERROR); });
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
  if (verb == "member") {  // every node's door hears it, this one's too
    if (hooks_.pusher_member) hooks_.pusher_member(argument);
    return;
  }
  if (node == node_id_) return;  // our own announcement: already done here
  if (verb == "kick") {
    hooks_.kick(std::move(argument));
  } else if (verb == "claim") {
    hooks_.evict(std::move(argument));
  }
}

}  // namespace ringcast
