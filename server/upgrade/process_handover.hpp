// What an upgrading process hands its new binary about the process itself (docs/operations.md,
// "Upgrading"): the listening sockets, the id sequence, the count of upgrades, and every client
// stream that moves, each with its descriptor and what the new process needs to go on with it.
// The sessions behind them travel in the hub's state; this is the process's own section.
//
// On the wire: "RCHO", the format (handover_version.hpp), the payload's length and its FNV-1a
// checksum, then the payload: the fields below in the order they are declared, as the node's state
// writes its records (record_walk.hpp; a string's length is 64-bit here). Each record names its
// fields for the refusals, which never trust a count or a length beyond the bytes that are there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/parsed.hpp"

namespace ringcast {

struct listening_socket {
  static constexpr const char* names[] = {"listener fd", "listener family"};
  int fd = -1;
  bool v6 = false;
};

// A frame queued for a moved stream whose write had not begun: a published message, by its place
// in process_handover::messages (its bytes are in the state once, however many streams hold
// it), or a frame of this stream's own (hello, a notice, a heartbeat).
struct queued_frame {
  static constexpr const char* names[] = {"queued frame", "queued frame text",
                                          "queued frame unnumbered"};
  static constexpr std::uint32_t own = ~std::uint32_t{0};
  std::uint32_t message = own;
  std::string text;         // the frame, when `message` is `own`
  bool unnumbered = false;  // the message framed without its id (SSE: a paced message come late)
};

// A WebSocket or SSE connection with its session (user, sid) and its state on this side.
struct moved_stream {
  static constexpr const char* names[] = {
      "stream fd",    "stream family",        "stream kind",   "user",        "sid",
      "channels",     "granted channels",     "token expiry",  "highest id",  "deflate",
      "compress-min", "partly written frame", "queued frames", "unread bytes"};
  enum class kind_t : std::uint8_t { ws = 0, sse = 1 };
  int fd = -1;
  bool v6 = false;
  kind_t kind = kind_t::ws;
  std::string user, sid;
  std::vector<std::string> channels;
  std::optional<std::vector<std::string>> allowed_channels;
  std::optional<std::int64_t> token_expires_ms;  // Unix ms of the client token's `exp`
  std::uint64_t highest_id = 0;                  // the highest message id queued to it
  bool deflate = false;                          // WebSocket permessage-deflate negotiated
  std::uint32_t compress_min = 0;
  std::string partial;               // the rest of the frame whose write had begun: written first
  std::vector<queued_frame> queued;  // then these, in order
  std::string unread;                // bytes the client sent that were read and not yet parsed
};

// A plain-HTTP connection that is between requests (keep-alive) or holds a long-poll: the new
// process reads `unread` as if it had just arrived, then the socket. A held poll's request is
// written back in front (its `since` set to where the poll stood), so the new process holds it
// again on the same session, or answers it with what came meanwhile.
struct moved_http {
  static constexpr const char* names[] = {"http fd", "http family", "held poll",
                                          "http unread bytes"};
  int fd = -1;
  bool v6 = false;
  bool held_poll = false;  // for the log and the counters only
  std::string unread;
};

// A message queued to moved streams, once for the state. When the node's state carries the
// same message (by id, with --redis never) the new process takes it from there and only the id is
// written here; otherwise what its frames are made of (an `expired` notice has the id of the
// message it is about, and its own text).
struct moved_message {
  static constexpr const char* names[] = {"message id", "message in the node's state",
                                          "message envelope", "message SSE prefix"};
  std::uint64_t id = 0;
  bool in_node_state = false;
  std::string json, sse_prefix;  // empty when in_node_state
};

struct process_handover {
  static constexpr const char* names[] = {
      "last id", "upgrades",         "reconnected", "pause start", "admin token", "listeners",
      "streams", "http connections", "messages",    "node id",     "node state"};
  std::uint64_t last_id = 0;   // the id sequence goes on from here
  std::uint64_t upgrades = 0;  // upgrades this process has been through, this one included
  // Connections told to reconnect by the upgrades so far, this one included (native TLS).
  std::uint64_t reconnected = 0;
  // When the old process stopped serving, on the monotonic clock (the same across exec): the new
  // one logs how long the pause was.
  std::int64_t paused_at_ns = 0;
  // The admin token the old process generated (no --admin-token): the new one keeps it.
  std::string generated_admin_token;
  std::vector<listening_socket> listeners;
  std::vector<moved_stream> streams;
  std::vector<moved_http> http;
  std::vector<moved_message> messages;  // what the streams' queued frames name
  // With --redis: the node's id among the nodes, which the new binary keeps (its session claims
  // and the kicks addressed to it in Redis name it); empty alone.
  std::string node_id;
  // The node's own state (sessions, history, schedule, reach): the upgrade layer's bytes
  // (upgrade/state_codec.hpp), checked by its reader; empty: none.
  std::string node_state;
};

std::string encode_handover(const process_handover& state);
parsed<process_handover> decode_handover(std::string_view bytes);

}  // namespace ringcast
