#include "redis/redis_reach.hpp"

#include <hiredis/hiredis.h>

#include <charconv>

#include <fmt/format.h>

#include "redis/redis_bus.hpp"
#include "redis/redis_stream.hpp"

namespace ringcast {
namespace {

const std::string reach_prefix = "{ringcast}:reach:";

// ARGV: node, key life (ms), then (message id, "recipients delivered acked") pairs.
constexpr const char* write_script = R"lua(
for i = 3, #ARGV, 2 do
  local key = '{ringcast}:reach:' .. ARGV[i]
  redis.call('HSET', key, ARGV[1], ARGV[i + 1])
  redis.call('PEXPIRE', key, ARGV[2])
end
return 1
)lua";

redis_reach::counts counts_of(const message& m) {
  constexpr auto relaxed = std::memory_order_relaxed;
  return {m.recipients.load(relaxed), m.delivered.load(relaxed), m.acked.load(relaxed)};
}

// "recipients delivered acked"; nullopt if a field is not that.
std::optional<redis_reach::counts> parse_counts(std::string_view text) {
  redis_reach::counts c;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  for (std::uint64_t* field : {&c.recipients, &c.delivered, &c.acked}) {
    const auto [next, ec] = std::from_chars(p, end, *field);
    if (ec != std::errc{}) return std::nullopt;
    p = next;
    if (p != end && *p == ' ') ++p;
  }
  if (p != end) return std::nullopt;
  return c;
}

}  // namespace

redis_reach::redis_reach(boost::asio::io_context& ctx, redis_bus& bus, retained_fn retained)
    : bus_(bus), retained_(std::move(retained)), timer_(ctx) {}

void redis_reach::start() {
  flush_later();
}

void redis_reach::stop() {
  timer_.cancel();
}

void redis_reach::flush_later() {
  timer_.expires_after(flush_period);
  timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec) flush();
  });
}

void redis_reach::flush() {
  std::unordered_map<std::uint64_t, counts> still;  // forgets what left the history
  std::vector<std::string> args{"EVAL", write_script, "0", bus_.node_id(),
                                std::to_string(std::chrono::milliseconds(record_life).count())};
  std::vector<std::pair<std::uint64_t, counts>> changed;
  for (const message_ptr& m : retained_()) {
    const counts now = counts_of(*m);
    const auto was = written_.find(m->id);
    if (was != written_.end()) still.emplace(m->id, was->second);
    if (now == counts{} || (was != written_.end() && was->second == now)) continue;
    args.push_back(std::to_string(m->id));
    args.push_back(fmt::format("{} {} {}", now.recipients, now.delivered, now.acked));
    changed.emplace_back(m->id, now);
  }
  written_ = std::move(still);
  if (!changed.empty()) {
    bus_.command(args, [this, changed = std::move(changed)](const redisReply* r) {
      if (!r || r->type == REDIS_REPLY_ERROR) return;  // written again at the next flush
      for (const auto& [id, c] : changed)
        written_[id] = c;
    });
  }
  flush_later();
}

void redis_reach::sum(const message_ptr& m, std::function<void(std::optional<counts>)> done) {
  bus_.command({"HGETALL", reach_prefix + std::to_string(m->id)},
               [this, m, done = std::move(done)](const redisReply* r) {
                 if (!r || r->type != REDIS_REPLY_ARRAY) return done(std::nullopt);
                 counts total = counts_of(*m);
                 for (std::size_t i = 0; i + 1 < r->elements; i += 2) {
                   if (reply_text(r->element[i]) == bus_.node_id()) continue;  // fresh above
                   if (const auto c = parse_counts(reply_text(r->element[i + 1]))) {
                     total.recipients += c->recipients;
                     total.delivered += c->delivered;
                     total.acked += c->acked;
                   }
                 }
                 done(total);
               });
}

}  // namespace ringcast
