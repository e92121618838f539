// The hub tests' common kit: a connection that records what it is given, the connect
// parameters, and the fixture (hub_fixture.hpp with short timeouts, message making and
// publishing) that the coordinator's and the parts' tests derive theirs from.
#pragma once

#include "hub_fixture.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <boost/json.hpp>

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using time_point = hub::time_point;
using std::chrono::milliseconds;

// A connection as the hub sees it: records what it is given.
class fake_subscriber final : public subscriber {
 public:
  explicit fake_subscriber(transport kind) : kind_(kind) {}

  transport kind() const override { return kind_; }
  bool wants(const message&) const override { return wanted; }
  void deliver(const message_ptr& m) override {
    messages.push_back(m);
    if (on_deliver) on_deliver(m);
  }
  void heartbeat() override { ++heartbeats; }
  void end(const ending_notice& notice) override { endings.push_back(notice); }

  std::vector<std::uint64_t> ids() const {
    std::vector<std::uint64_t> out;
    for (const auto& m : messages)
      out.push_back(m->id);
    return out;
  }
  bool ended() const { return !endings.empty(); }
  ending last_ending() const { return endings.back().why; }

  std::vector<message_ptr> messages;
  bool wanted = true;  // false: wants no message (as a Pusher connection a broadcast)
  int heartbeats = 0;
  std::vector<ending_notice> endings;
  std::function<void(const message_ptr&)> on_deliver;  // e.g. a long-poll answering at once

 private:
  transport kind_;
};

using ids = std::vector<std::uint64_t>;

inline std::vector<std::uint64_t> ids_of(const std::vector<message_ptr>& messages) {
  std::vector<std::uint64_t> out;
  for (const auto& m : messages)
    out.push_back(m->id);
  return out;
}

inline client_params params(std::string user, std::string sid = "0",
                            std::vector<std::string> channels = {},
                            std::optional<std::uint64_t> since = std::nullopt) {
  client_params p;
  p.user = std::move(user);
  p.sid = std::move(sid);
  p.channels = std::move(channels);
  p.since = since;
  return p;
}

class hub_test_base : public test::hub_fixture {
 protected:
  hub_test_base() {
    cfg.tick = 10ms;
    cfg.heartbeat = 1s;
    cfg.idle_timeout = 3s;
    cfg.session_ttl = 5s;
    cfg.poll_timeout = 2s;
    cfg.reconnect_delay = 1s;
    cfg.drain = 2s;
    cfg.max_connection_age = 0ms;
  }

  hub::attach_result attach(const client_params& p, fake_subscriber& conn) {
    return the_hub().attach(p, conn, now);
  }
  void detach(const hub::attach_result& r, fake_subscriber& conn) {
    the_hub().detach(*r.s, conn, now);
  }

  // Advances 1 ms at a time until `done()` holds; returns the simulated time it first held at
  // (or time_point::max() if not by `limit`).
  time_point advance_until(const std::function<bool()>& done, time_point limit) {
    while (now < limit) {
      advance_to(now + 1ms);
      if (done()) return now;
    }
    return time_point::max();
  }

  message_ptr make(audience to = audience::broadcast, std::string target = "") {
    const std::uint64_t id = ++last_id;
    return make_message(id, 1'700'000'000'000, {to, std::move(target)},
                        R"({"n":)" + std::to_string(id) + "}");
  }
  std::size_t publish(audience to = audience::broadcast, std::string target = "") {
    return the_hub().publish(make(to, std::move(target)), now);
  }

  std::uint64_t last_id = 0;
};

inline boost::json::object parse_object(std::string_view text) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  EXPECT_FALSE(ec) << text;
  return v.is_object() ? v.as_object() : boost::json::object{};
}

}  // namespace
}  // namespace ringcast
