// What of a published message (core/message.hpp) survives an upgrade, declared once: the message
// in memory is this record over its audience enum, a duration and atomics (it inherits it, so its
// code reads the fields as its own), the handover state holds the same record over the audience's
// wire number, milliseconds as a number and plain numbers (handover_state.hpp), and capture,
// restore and the codec walk its fields (record_walk.hpp). A field added here is carried across an
// upgrade with no other line but a bump of state_format; a type nothing can encode fails the build.
#pragma once

#include <cstdint>
#include <string>

namespace ringcast::upgrade {

// The state's numbers as they are: the `Shared` of a record in the state.
template <class T>
using plain = T;

// `Shared`: std::atomic in memory, where every loop holding the (shared, const) message counts
// its reach; plain in the state.
template <class Audience, class Millis, template <class> class Shared>
struct message_record {
  static constexpr const char* plural = "messages";
  std::uint64_t id = 0;
  std::int64_t ts_ms = 0;       // publish time, Unix milliseconds
  Audience to{};                // broadcast, channel, user, users
  std::string target;           // channel name or user id(s); empty for a broadcast
  std::int64_t expires_ms = 0;  // Unix ms after which it is expired ("ttl"); 0: never
  Millis spread{};              // > 0: paced, each session at its turn (core/pacing.hpp)
  bool sticky = false;  // in force: sent to a client that connects without `since` (core/sticky)
  std::string json;     // the whole {"type":"message",...} envelope, as every client was sent it
  // Reach (GET /admin/messages/<id>, docs/protocol.md "Reach"), counted by every loop that holds
  // the message.
  mutable Shared<std::uint64_t> recipients{0};  // live sessions at publish
  mutable Shared<std::uint64_t> delivered{0};   // queued to a client (live or on resume)
  mutable Shared<std::uint64_t> acked{0};       // a client's ack named this id
  mutable Shared<bool> expired{false};          // its ttl passed (set by the first loop)
  // The Pusher door's (docs/pusher.md): the event name (empty: "message"), a socket id that must
  // not receive it, and a client event's sender on a presence channel (empty: none).
  std::string pusher_event;
  std::string pusher_except_socket;
  std::string pusher_user_id;
#ifdef RINGCAST_TEST_EXTRA_MESSAGE_FIELDS
  // tests/server/upgrade/state_added_field_test.cpp: fields added in a scratch build must cross.
  RINGCAST_TEST_EXTRA_MESSAGE_FIELDS
#endif

  bool operator==(const message_record&) const = default;
};

}  // namespace ringcast::upgrade
