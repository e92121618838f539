// The session events of one loop as the JSON objects the backend receives (docs/protocol.md,
// "Event hooks"), queued in its outbox:
//   {"event_id":"<node>-<loop>-<n>","type":"connect","ts":<unix ms>,"user":…,"session":"user/sid",
//    "transport":"ws","resumed":false,"channels":[…],"node":"<node>"}
//   disconnect: + "reason"; subscribe / unsubscribe: + "channels" (those added or removed).
// event_id is unique across the cluster: each node draws a random id at start, each loop counts.
//
// Channel changes are coalesced per session until the outbox builds its next batch (it takes
// them as a hook_pending): what a session subscribed and unsubscribed again meanwhile is not
// sent at all, so a client flooding subscribe/unsubscribe costs at most two events per batch
// (a subscribe and an unsubscribe of the net changes), never one per frame. A connect or
// disconnect of the session sends its pending change first, so its events stay in order.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/session_events.hpp"
#include "hooks/hook_outbox.hpp"

namespace ringcast {

class hook_event_writer final : public session_events, public hook_pending {
 public:
  hook_event_writer(hook_outbox& out, std::string node, unsigned loop,
                    std::function<std::int64_t()> unix_ms);
  ~hook_event_writer();
  hook_event_writer(const hook_event_writer&) = delete;
  hook_event_writer& operator=(const hook_event_writer&) = delete;

  void on_connect(const session& s, bool resumed) override;
  void on_disconnect(const session& s, std::string_view reason) override;
  void on_subscribe(const session& s, const std::vector<std::string>& channels) override;
  void on_unsubscribe(const session& s, const std::vector<std::string>& channels) override;
  void take_pending(std::vector<std::string>& out) override;

 private:
  class event;
  // The net channel change of one session since the last batch: `added` and `removed` are
  // disjoint, each at most the session's channel limit.
  struct change {
    std::string user, key;
    std::vector<std::string> added, removed;
    std::int64_t ts = 0;  // of the latest change
  };
  change& pending_for(const session& s);
  void write_change(change& c, std::vector<std::string>& out);
  void send_pending_of(const session& s);  // before its connect or disconnect

  hook_outbox& out_;
  std::string node_;
  std::string id_prefix_;  // "<node>-<loop>-"
  std::uint64_t next_ = 0;
  std::function<std::int64_t()> unix_ms_;
  std::vector<change> pending_;                              // in the order of first change
  std::unordered_map<std::string, std::size_t> pending_at_;  // session key -> index in pending_
};

}  // namespace ringcast
