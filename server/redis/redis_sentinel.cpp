#include "redis/redis_sentinel.hpp"

#include <hiredis/hiredis.h>

#include <boost/asio/post.hpp>
#include <charconv>

#include "core/log.hpp"

namespace ringcast {

namespace asio = boost::asio;

namespace {

std::string_view str(const redisReply* r) {
  return {r->str, r->len};
}

std::optional<std::uint16_t> port_of(std::string_view s) {
  unsigned v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size() || v == 0 || v > 65535) return std::nullopt;
  return static_cast<std::uint16_t>(v);
}

bool is_text(const redisReply* r) {
  return r && (r->type == REDIS_REPLY_STRING || r->type == REDIS_REPLY_STATUS);
}

}  // namespace

redis_sentinel::redis_sentinel(asio::io_context& ctx, redis_url url)
    : ctx_(ctx), url_(std::move(url)), rewatch_(ctx) {}

redis_sentinel::~redis_sentinel() {
  *alive_ = false;
}

redis_url redis_sentinel::endpoint_url(const redis_endpoint& e, bool sentinel) const {
  redis_url u = url_;
  u.host = e.host;
  u.port = e.port;
  u.sentinels.clear();
  u.is_sentinel = sentinel;
  if (sentinel) u.user.clear(), u.password.clear();
  return u;
}

void redis_sentinel::resolve(resolved done) {
  asking_.clear();  // a resolve in progress is replaced
  const auto generation = ++generation_;
  // Once answered, its connections are closed (later: not from inside their own callbacks).
  auto finish = [this, generation, done = std::move(done), alive = alive_](
                    std::optional<redis_endpoint> master, std::string why) {
    if (!*alive) return;
    asio::post(ctx_, [this, generation, alive] {
      if (*alive && generation == generation_) asking_.clear();
    });
    done(std::move(master), std::move(why));
  };
  ask(0, std::make_shared<resolved>(std::move(finish)), {});
}

void redis_sentinel::ask(std::size_t index, std::shared_ptr<resolved> done, std::string errors) {
  if (index == url_.sentinels.size()) {
    asio::post(ctx_, [done, errors] { (*done)(std::nullopt, errors); });
    return;
  }
  const redis_endpoint& sentinel = url_.sentinels[index];
  auto next = [this, index, done, errors,
               where = fmt::format("{}:{}", sentinel.host, sentinel.port),
               alive = alive_](std::string why) mutable {
    if (!*alive) return;
    ask(index + 1, done, errors + (errors.empty() ? "" : "; ") + where + ": " + why);
  };
  asking_.push_back(std::make_unique<redis_connection>(ctx_, endpoint_url(sentinel, true)));
  redis_connection* c = asking_.back().get();
  auto answered = std::make_shared<bool>(false);
  c->connect(
      [this, c, answered, next, done, index, errors, alive = alive_]() mutable {
        c->command({"SENTINEL", "get-master-addr-by-name", url_.master_name},
                   [this, answered, next, done, index, errors, alive](const redisReply* r) mutable {
                     if (!*alive || *answered) return;
                     *answered = true;
                     if (!r) return next("connection lost");
                     if (r->type == REDIS_REPLY_NIL)
                       return next(fmt::format("does not know master '{}'", url_.master_name));
                     if (r->type != REDIS_REPLY_ARRAY || r->elements != 2 ||
                         !is_text(r->element[0]) || !is_text(r->element[1]))
                       return next("unexpected reply to SENTINEL get-master-addr-by-name");
                     const auto port = port_of(str(r->element[1]));
                     if (!port) return next("unexpected port in its reply");
                     check_role({std::string(str(r->element[0])), *port}, index, done, errors);
                   });
      },
      [answered, next](const std::string& why) mutable {
        if (*answered) return;
        *answered = true;
        next(why);
      });
}

void redis_sentinel::check_role(redis_endpoint master, std::size_t index,
                                std::shared_ptr<resolved> done, std::string errors) {
  asking_.push_back(std::make_unique<redis_connection>(ctx_, endpoint_url(master, false)));
  redis_connection* c = asking_.back().get();
  auto answered = std::make_shared<bool>(false);
  auto next = [this, index, done, errors, master, alive = alive_](std::string why) {
    if (!*alive) return;
    ask(index + 1, done,
        errors + (errors.empty() ? "" : "; ") +
            fmt::format("master {}:{} named by {}:{}: {}", master.host, master.port,
                        url_.sentinels[index].host, url_.sentinels[index].port, why));
  };
  c->connect(
      [c, answered, next, done, master, alive = alive_] {
        c->command({"ROLE"}, [answered, next, done, master, alive](const redisReply* r) {
          if (!*alive || *answered) return;
          *answered = true;
          if (!r || r->type != REDIS_REPLY_ARRAY || r->elements == 0 || !is_text(r->element[0]))
            return next("no answer to ROLE");
          if (str(r->element[0]) != "master")
            return next(fmt::format("is a {}, not the master", str(r->element[0])));
          (*done)(master, {});
        });
      },
      [answered, next](const std::string& why) {
        if (*answered) return;
        *answered = true;
        next(why);
      });
}

void redis_sentinel::watch(std::function<void(redis_endpoint)> on_switch) {
  on_switch_ = std::move(on_switch);
  subscribe(0);
}

void redis_sentinel::subscribe(std::size_t index) {
  watch_index_ = index % url_.sentinels.size();
  watching_ =
      std::make_unique<redis_connection>(ctx_, endpoint_url(url_.sentinels[watch_index_], true));
  // Either the subscription ends or it never started: try the next Sentinel after a second.
  auto again = [this, alive = alive_] {
    if (!*alive) return;
    rewatch_.expires_after(std::chrono::seconds(1));
    rewatch_.async_wait([this, alive](boost::system::error_code ec) {
      if (!ec && *alive) subscribe(watch_index_ + 1);
    });
  };
  redis_connection* c = watching_.get();
  c->connect(
      [this, c, again] {
        c->subscribe("+switch-master", [this, again](const redisReply* r) {
          if (!r) return again();
          // ["message", "+switch-master", "<master> <old ip> <old port> <new ip> <new port>"]
          if (r->type != REDIS_REPLY_ARRAY || r->elements != 3 || !is_text(r->element[0]) ||
              str(r->element[0]) != "message" || !is_text(r->element[2]))
            return;
          const std::string payload(str(r->element[2]));
          std::vector<std::string> words;
          for (std::size_t at = 0; at < payload.size();) {
            auto space = payload.find(' ', at);
            if (space == std::string::npos) space = payload.size();
            words.push_back(payload.substr(at, space - at));
            at = space + 1;
          }
          if (words.size() != 5 || words[0] != url_.master_name) return;
          const auto port = port_of(words[4]);
          if (!port) return;
          log_info("redis: Sentinel announces +switch-master {} {}:{} -> {}:{}", words[0], words[1],
                   words[2], words[3], words[4]);
          if (on_switch_) on_switch_({words[3], *port});
        });
      },
      [again](const std::string&) { again(); });
}

}  // namespace ringcast
