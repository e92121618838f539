// A published message: serialized once, shared immutably by every queue it is put on.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/admin_request.hpp"
#include "protocol/gzip_stream.hpp"
#include "protocol/ws_codec.hpp"
#include "upgrade/message_record.hpp"

namespace ringcast {

enum class audience : std::uint8_t { broadcast, channel, user, users };
// "broadcast", "channel", "user", "users": as the Redis stream records them.
std::string_view name_of(audience a);
std::optional<audience> audience_named(std::string_view name);

// Whom a publish request addresses: the audience and its channel name or user id (empty for a
// broadcast; for a list of users, the sorted ids joined by ',', which no identifier contains).
struct addressee {
  audience to = audience::broadcast;
  std::string target;
};
addressee addressee_of(const publish_request& req);

// What the Pusher door needs of a message beyond its envelope (docs/pusher.md), as a publish
// gives it: its record's pusher_event, pusher_except_socket and pusher_user_id.
struct pusher_shape {
  std::string event;
  std::string except_socket;
  std::string user_id;
};
pusher_shape pusher_shape_of(const publish_request& req);

// Its fields that an upgrade carries over are its record (upgrade/message_record.hpp): one place
// declares them for the message, the handover state, capture, restore and the codec. The rest is
// made from them (complete_message).
struct message : upgrade::message_record<audience, std::chrono::milliseconds, std::atomic> {
  using record = upgrade::message_record<audience, std::chrono::milliseconds, std::atomic>;

  std::vector<std::string> users;  // audience::users: the ids of `target`, sorted
  std::string sse_prefix;  // "id: <id>\nevent: message\ndata: " (the event: prefix + json + "\n\n")
  std::string poll_body;   // a long-poll reply carrying just this message
  // The WebSocket text frame whose payload is `json`, header and payload in one buffer: a delivery
  // is then one send() of it, as the floor's (docs/performance.md section 19).
  std::string ws_frame;

  // The permessage-deflate frame of `json`, built by ws_deflated_frame() (message_deflate.hpp)
  // the first time a recipient that negotiated it needs it, then shared by all of them.
  mutable std::once_flag ws_deflate_once;
  mutable std::string ws_deflated;  // empty until then, or when compressing does not pay
  // The SSE event (sse_prefix, json, "\n\n") as a gzip stream piece (gzip_stream.hpp), built by
  // sse_gzip_piece() the first time a gzip subscriber needs it.
  mutable std::once_flag sse_gzip_once;
  mutable std::string sse_gzip;
  // The same without the `id:` line (sse_unnumbered_prefix, json, "\n\n"), by
  // sse_gzip_unnumbered_piece(): what an SSE client gets of a paced message that came late.
  mutable std::once_flag sse_gzip_unnumbered_once;
  mutable std::string sse_gzip_unnumbered;
  // `json` as a measured gzip piece, by poll_json_piece(): a long-poll reply of several messages
  // is spliced from these (gzip_stream.hpp), so no request deflates.
  mutable std::once_flag poll_json_once;
  mutable gzip::measured_piece poll_json_piece;
  // `poll_body` gzipped, by poll_gzip_body(); empty when that would not be shorter.
  mutable std::once_flag poll_gzip_once;
  mutable std::string poll_gzip;
  // The WebSocket frame of the Pusher event of a channel message (its header's size, then the
  // event), built by pusher_ws_frame() (message_pusher.hpp) the first time a Pusher connection
  // needs it, then shared by all of them.
  mutable std::once_flag pusher_frame_once;
  mutable std::string pusher_ws_frame;
  mutable std::uint8_t pusher_header_size = 0;

  bool addressed_to_user(std::string_view user) const;  // audience::users only
  bool is_expired() const { return expired.load(std::memory_order_relaxed); }
};

using message_ptr = std::shared_ptr<const message>;

// The SSE event of a message framed without its `id:` line (then `json` and a blank line).
inline constexpr std::string_view sse_unnumbered_prefix = "event: message\ndata: ";

// {"type":"messages","messages":[...],"last_id":N,"gap":false}: a long-poll reply.
std::string messages_json(const std::vector<message_ptr>& messages, std::uint64_t last_id,
                          bool gap);

// The same reply as pieces to gather, so that no message's bytes are copied per reply: the head,
// then each message's `json` with `messages_separator` between them, then
// messages_tail(last_id, gap, more) (`"more":true` when the client should poll again at once).
inline constexpr std::string_view messages_head = R"({"type":"messages","messages":[)";
inline constexpr std::string_view messages_separator = ",";
std::string messages_tail(std::uint64_t last_id, bool gap, bool more);

// A long-poll reply stops adding messages once its body has passed this many bytes.
inline constexpr std::size_t max_poll_reply_bytes = 1024 * 1024;

// Builds the envelope around `data_json` (already valid, compact JSON). With `expires_ms` the
// envelope carries "expires" (Unix ms), so a page can count down.
message_ptr make_message(std::uint64_t id, std::int64_t ts_ms, addressee to,
                         std::string_view data_json, std::int64_t expires_ms = 0,
                         std::chrono::milliseconds spread = std::chrono::milliseconds{0},
                         bool sticky = false, pusher_shape pusher = {});

// A message whose record is set (as it was sent before: the handover to a new binary,
// core/handover_messages.cpp): the rest is made from it as make_message makes it.
void complete_message(message& m);

// {"type":"expired","id":N} for WebSocket and SSE (event: expired, no id: line, so Last-Event-ID
// does not move); a held long-poll is answered with it in `messages`, with `last_id`.
message_ptr make_expired_notice(std::uint64_t id, std::uint64_t last_id);

}  // namespace ringcast
