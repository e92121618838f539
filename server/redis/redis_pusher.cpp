#include "redis/redis_pusher.hpp"

#include <hiredis/hiredis.h>

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include "core/log.hpp"
#include "redis/redis_bus.hpp"
#include "redis/redis_pusher_scripts.hpp"

namespace ringcast {
namespace {

namespace asio = boost::asio;
namespace json = boost::json;

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
  std::vector<std::string> full{"EVAL",
                                std::string(pusher_lua::common_lua) + pusher_lua::change_lua,
                                "0",
                                bus_.node_id(),
                                std::to_string(3 * ttl_.count()),
                                control_channel};
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
  bus_.command(
      {"EVAL", std::string(pusher_lua::common_lua) + pusher_lua::beat_lua, "0", bus_.node_id(),
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
      {"EVAL", std::string(pusher_lua::common_lua) + pusher_lua::rewrite_lua, "0", bus_.node_id(),
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
        {"EVAL", pusher_lua::read_lua, "0", std::to_string(ttl_.count()), "c", name},
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
    bus_.command({"EVAL", pusher_lua::read_lua, "0", std::to_string(ttl_.count()), "l", prefix},
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
    bus_.command({"EVAL", pusher_lua::read_lua, "0", std::to_string(ttl_.count()), "m", channel},
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
