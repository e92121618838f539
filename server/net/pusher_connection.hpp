// A Pusher Channels client (protocol 7) at /app/{key} (docs/pusher.md): a WebSocket whose session
// is a hub session like a ringcast WebSocket's (the wheel times it: --heartbeat sends
// pusher:ping, a client silent for --idle-timeout is closed 4201), keyed so that it cannot meet a
// ringcast session ("#<socket id>", '#' being no identifier character) and dropped as soon
// as the connection ends (Pusher has no resume).
//
// Client frames are read as ws_connection reads them (ws::reader, a small buffer on the stack,
// only when the socket is readable); each costs a --client-message-rate token. A channel message
// goes out as its Pusher frame, built once per message and shared (core/message_pusher.hpp),
// never to the socket its except_socket names. Frames in: pusher_frames_in.cpp.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/pusher_channels.hpp"
#include "core/token_bucket.hpp"
#include "net/client_frames_connection.hpp"
#include "net/connection_parts.hpp"
#include "protocol/http_reply.hpp"
#include "protocol/ws_codec.hpp"
#include "pusher/pusher_client_frame.hpp"

namespace ringcast {

class pusher_door;

class pusher_connection final : public client_frames_connection {
 public:
  // Channels one connection may be subscribed to: ringcast's per-session limit does not apply to
  // this door; this one does (docs/pusher.md, "Limits").
  static constexpr std::size_t max_channels = 100;
  // Client events a connection may send a second (Pusher's limit), in bursts of as many.
  static constexpr double client_event_rate = 10;

  // The path of the door's connects: /app/{key}.
  static constexpr std::string_view path_prefix = "/app/";
  // What a connect to `target` (/app/{key}?protocol=7&client=…&version=…) is refused after the
  // upgrade: a key that is not the app's (4001), no protocol (4008) or one other than 5-7 (4007).
  static std::optional<pusher::frame_refusal> refusal_of(std::string_view target,
                                                         const pusher_door& door);
  // The connect passed Origin, the limits and the session budget: Beast answers the upgrade (its
  // own 400/426 refusals), then the connection says pusher:connection_established, or, when
  // `refused`, that pusher:error, and closes.
  static void start(connection_context& ctx, connection_parts parts, http_request request,
                    std::optional<pusher::frame_refusal> refused, std::string socket_id);
  // Pusher's form of a socket id, unique across nodes (an except_socket travels through Redis).
  static std::string next_socket_id();
  // The session name of a Pusher connection.
  static std::string session_user(std::string_view socket_id);

  pusher_connection(connection_context& ctx, connection_parts parts, std::string socket_id);
  ~pusher_connection();

  transport kind() const override { return transport::ws; }
  void heartbeat() override;  // pusher:ping
  void detaching() override;  // leaves its presence channels

  // From pusher_door on this connection's loop: a member joined or left a presence channel it
  // listens to (not sent before its own subscription_succeeded, which lists the members).
  void member_added(const std::string& channel, const pusher_member& member);
  void member_removed(const std::string& channel, const std::string& user_id);
  // Its signed-in user's connections are terminated: pusher:error 4009 and close. False if it
  // was already ending.
  bool terminate();

 private:
  // `switching`: the 101, written first.
  void begin(const std::optional<pusher::frame_refusal>& refused, std::string_view early_bytes,
             std::string switching);
  void send_text(std::string_view text);
  // Sends pusher:error {code, message} and, with a code of 4000-4999, closes with that code.
  void refuse(std::optional<int> code, std::string_view message);

  // client_frames_connection
  std::uint32_t client_message_limit() const override { return pusher::max_client_frame; }
  void over_rate(double rate) override;  // 4301
  // pusher_frames_in.cpp: each message a client sends.
  void on_message(std::string_view text) override;
  void on_subscribe(pusher::subscribe_frame& f);
  void on_unsubscribe(const pusher::unsubscribe_frame& f);
  void on_signin(const pusher::signin_frame& f);
  void on_client_event(pusher::client_event_frame& f);
  void after_subscribed(const std::string& channel, bool cache);
  void send_cached(const std::string& channel, std::uint64_t sent);
  bool listens_to(std::string_view channel);
  void members_known(const std::string& channel,
                     const std::optional<std::vector<pusher_member>>& members);
  pusher_door& door();

  // stream_connection
  bool wants(const message& m) const override;
  bool capture_transport(moved_stream&) const override { return false; }  // no resume: closed
  std::size_t message_buffers(const message& m, bool unnumbered, frame_buffers& out) const override;
  void queued(const message& m, bool unnumbered) override;
  std::string frame(std::string_view event, std::string_view json,
                    std::optional<std::uint32_t> retry_ms) const override;
  std::string ending_frame(const ending_notice& notice) const override;
  std::string closing_frame(ending why) const override;

  std::string socket_id_;
  // Presence channels it joined, with its member's user_id there (pusher_channels knows the
  // members); one still waiting for its member list hears no member events.
  struct presence_seat {
    std::string channel;
    std::string user_id;
    bool waiting = true;
  };
  // What only some connections use, held from its first use until none of it is left (as
  // client_frames_connection holds its input): an idle connection on public channels holds none.
  struct occasional_state {
    std::string signed_in;  // pusher:signin's user id; empty before
    std::vector<presence_seat> presence;
    // The client-* events' bucket (held with the rest until it is full again).
    token_bucket client_events;
  };
  std::unique_ptr<occasional_state> occasional_;
  occasional_state& occasional();
  const std::string& signed_in() const;
  presence_seat* seat_on(std::string_view channel);
  bool take_client_event_token();
  // A quiet moment: gives back what reading the client took, if nothing in it is needed now.
  void release_idle();
};

}  // namespace ringcast
