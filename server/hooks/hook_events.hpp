// The session events of one loop as the JSON objects the backend receives (docs/protocol.md,
// "Event hooks"), queued in its outbox:
//   {"event_id":"<node>-<loop>-<n>","type":"connect","ts":<unix ms>,"user":…,"session":"user/sid",
//    "transport":"ws","resumed":false,"channels":[…],"node":"<node>"}
//   disconnect: + "reason"; subscribe / unsubscribe: + "channels" (those added or removed).
// event_id is unique across the cluster: each node draws a random id at start, each loop counts.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "hook_outbox.hpp"
#include "session_events.hpp"

namespace ringcast {

class hook_event_writer final : public session_events {
 public:
  hook_event_writer(hook_outbox& out, std::string node, unsigned loop,
                    std::function<std::int64_t()> unix_ms);

  void on_connect(const session& s, bool resumed) override;
  void on_disconnect(const session& s, std::string_view reason) override;
  void on_subscribe(const session& s, const std::vector<std::string>& channels) override;
  void on_unsubscribe(const session& s, const std::vector<std::string>& channels) override;

 private:
  class event;
  hook_outbox& out_;
  std::string node_;
  std::string id_prefix_;  // "<node>-<loop>-"
  std::uint64_t next_ = 0;
  std::function<std::int64_t()> unix_ms_;
};

}  // namespace ringcast
