// What of a session (core/session.hpp) survives an upgrade, declared once: the session in memory
// is this record over steady time points and its transport enum (it inherits it, so its code
// reads the fields as its own), the handover state holds the same record over times relative to
// the capture and the transport's wire number (handover_state.hpp), and capture, restore and the
// codec walk its fields (record_walk.hpp). A field added here is carried across an upgrade with no
// other line but a bump of state_format; a type nothing can encode fails the build.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ringcast::upgrade {

template <class Time, class Transport>
struct session_record {
  std::string user_;
  std::string sid_;
  std::vector<std::string> channels_;
  // For each of channels_ (same index), the newest id when it was joined (hub::was_sent).
  std::vector<std::uint64_t> joined_after_;
  // Granted to the current connection (its client token, the connect hook): grant_channels().
  std::optional<std::vector<std::string>> allowed_channels_;  // none: any channel
  Time token_expires_{};        // the connection gets close/expired (never: the latest time)
  Transport transport_{};       // of its current or last connection: it may be mid-destruction
  bool online_ = false;         // see core/session_events.hpp
  std::uint64_t acked_id_ = 0;  // the last id the client acknowledged
  std::uint64_t paced_acked_id_ = 0;  // the last paced id acknowledged (hub::acknowledge)
  // What was sent, for hub::was_sent (acks count only for those): the highest id handed to its
  // connections, and the id at or below which a connection started without being sent anything.
  std::uint64_t sent_up_to_ = 0;
  std::uint64_t ack_floor_ = 0;
  // Paced delivery (core/pacing.hpp): the id it started after (paced messages at or below it are
  // not its business), and how far the paced walk had got when its last connection ended.
  std::uint64_t start_id_ = 0;
  Time paced_until_{};
  Time attached_at_{};    // when its connection was set
  Time last_activity_{};  // last client frame or pong (WebSocket)
  Time last_sent_{};      // last server write (heartbeats are due after it)
  Time detached_at_{};    // when the last connection ended
#ifdef RINGCAST_TEST_EXTRA_SESSION_FIELDS
  // tests/server/upgrade/added_field_test.cpp: fields added in a scratch build must cross over.
  RINGCAST_TEST_EXTRA_SESSION_FIELDS
#endif

  bool operator==(const session_record&) const = default;
};

}  // namespace ringcast::upgrade
