// The hub's parts without the hub that coordinates them (core/hub.hpp), for each part's own tests:
// the session table, the audience index, the pacer and the message store, made as the hub makes
// them, over the simulated loop of hub_fixture.hpp. A test calls a part as the hub would.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "core/audience_index.hpp"
#include "core/message_store.hpp"
#include "core/pacer.hpp"
#include "core/session_observers.hpp"
#include "core/session_table.hpp"
#include "hub_fixture.hpp"

namespace ringcast::test {

struct loop_parts {
  loop_parts(const config& cfg, loop_timers& timers, loop_stats& stats, std::uint64_t floor_id)
      : table(cfg, timers, stats, audience, pacing, observers, store),
        audience(table.users(), observers),
        pacing(cfg, timers, stats),
        store(cfg, timers, stats, floor_id, audience, pacing) {}

  session_observers observers;
  session_table table;
  audience_index audience;
  pacer pacing;
  message_store store;
};

// A connection that records what it is given.
class recording_connection final : public subscriber {
 public:
  explicit recording_connection(transport kind = transport::ws) : kind_(kind) {}
  transport kind() const override { return kind_; }
  void deliver(const message_ptr& m) override {
    got.push_back(m->id);
    texts.push_back(m->json);
  }
  void heartbeat() override {}
  void end(const ending_notice& notice) override { endings.push_back(notice.why); }

  std::vector<std::uint64_t> got;  // the id of each message given, and its JSON
  std::vector<std::string> texts;
  std::vector<ending> endings;

 private:
  transport kind_;
};

// What parts_fixture::make gives a message.
struct message_options {
  addressee to{};
  std::chrono::milliseconds ttl{0};  // 0: none
  std::chrono::milliseconds spread{0};
  bool sticky = false;
};

class parts_fixture : public loop_fixture<loop_parts> {
 protected:
  loop_parts& parts() { return held(); }
  session_table& table() { return parts().table; }

  // A session of the table with `conn` as its live connection, listening to `channels`.
  session& live(const std::string& user, const std::string& sid, subscriber& conn,
                std::vector<std::string> channels = {}) {
    session& s = table().create(user, sid);
    parts().audience.set_channels(s, std::move(channels), parts().store.newest_id());
    table().go_live(s, conn);
    return s;
  }
  message_ptr make(message_options o = {}) {
    const std::uint64_t id = ++last_id;
    const std::int64_t ts_ms = 1'700'000'000'000;
    return make_message(id, ts_ms, o.to, R"({"n":)" + std::to_string(id) + "}",
                        o.ttl.count() ? ts_ms + o.ttl.count() : 0, o.spread, o.sticky);
  }

  std::uint64_t last_id = 0;
};

}  // namespace ringcast::test
