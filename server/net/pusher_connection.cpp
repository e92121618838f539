#include "net/pusher_connection.hpp"

#include <boost/asio/post.hpp>

#include <boost/url/parse.hpp>

#include <atomic>
#include <random>

#include "core/message_pusher.hpp"
#include "core/repeated_warning.hpp"
#include "net/pusher_door.hpp"
#include "pusher/pusher_names.hpp"
#include "pusher/pusher_server_frames.hpp"

namespace ringcast {

// A broadcast prefetches this much of each recipient (subscriber.hpp).
static_assert(sizeof(pusher_connection) <= subscriber::delivery_bytes);

namespace asio = boost::asio;

namespace {

// The Pusher code a hub ending is told with (docs/pusher.md, "Errors"): 4200-4299 reconnect at
// once, 4100-4199 after a back-off, 4009 do not reconnect as is.
int pusher_code(ending why) {
  switch (why) {
    case ending::close_idle:
      return pusher::pong_not_received;
    case ending::close_kicked:
      return pusher::connection_unauthorized;
    case ending::close_slow:
      return pusher::over_capacity;
    default:
      return pusher::reconnect;
  }
}

}  // namespace

// The process's random high part (drawn once: ids of two nodes differ in it) and its count of
// connections, so that ids never repeat. Short on purpose: up to 100,000 connections of the
// process, the id and the session's names fit in a string's own bytes (no heap).
std::string pusher_connection::next_socket_id() {
  static const std::uint64_t high = [] {
    std::random_device device;
    return std::uniform_int_distribution<std::uint64_t>(10'000'000, 99'999'999)(device);
  }();
  static std::atomic<std::uint64_t> count{0};
  return pusher::make_socket_id(high, count.fetch_add(1, std::memory_order_relaxed) + 1);
}

std::optional<pusher::frame_refusal> pusher_connection::refusal_of(std::string_view target,
                                                                   const pusher_door& door) {
  const auto url = boost::urls::parse_origin_form(target);
  if (!url) return pusher::frame_refusal{pusher::unknown_app, "Application does not exist"};
  const std::string_view path = url->encoded_path();
  if (!path.starts_with(path_prefix) || path.substr(path_prefix.size()) != door.app().key)
    return pusher::frame_refusal{pusher::unknown_app, "Application does not exist"};
  const auto protocol = url->encoded_params().find("protocol");
  if (protocol == url->encoded_params().end() || !(*protocol).has_value)
    return pusher::frame_refusal{pusher::no_protocol, "No protocol version supplied"};
  const std::string version = (*protocol).value.decode();
  if (version != "5" && version != "6" && version != "7")
    return pusher::frame_refusal{pusher::unsupported_protocol,
                                 "Unsupported protocol version " + version};
  return std::nullopt;
}

std::string pusher_connection::session_user(std::string_view socket_id) {
  return "#" + std::string(socket_id);
}

// The 101 goes with connection_established in one write (ws_handshake.hpp), as on /ws; an upgrade
// Beast refuses is Beast's to answer.
void pusher_connection::start(connection_context& ctx, connection_parts parts, http_request request,
                              std::optional<pusher::frame_refusal> refused, std::string socket_id) {
  auto upgrade = accept_upgrade(ctx, std::move(parts), request, std::nullopt);
  if (!upgrade) return;
  auto c =
      std::make_shared<pusher_connection>(ctx, std::move(upgrade->parts), std::move(socket_id));
  c->begin(refused, upgrade->early_bytes, std::move(upgrade->switching));
}

pusher_connection::pusher_connection(connection_context& ctx, connection_parts parts,
                                     std::string socket_id)
    : client_frames_connection(ctx, std::move(parts), connection_kind::ws),
      socket_id_(std::move(socket_id)) {}

// Pusher has no resume: the session goes with its connection. One still attached here is
// detached by ~stream_connection, where detaching() no longer reaches this class: it leaves its
// presence channels first.
pusher_connection::~pusher_connection() {
  if (current_session())
    detaching();
  else
    context().sessions().kick(session_user(socket_id_), context().now());
}

// Before its session goes offline (the client left, or the hub ends it): a channel's last
// member_removed comes before presence vacates it.
void pusher_connection::detaching() {
  if (occasional_ && !occasional_->presence.empty()) door().channels().leave_all(socket_id_);
}

void pusher_connection::begin(const std::optional<pusher::frame_refusal>& refused,
                              std::string_view early_bytes, std::string switching) {
  if (refused) {
    reader_done_ = true;
    send_framed(std::move(switching));
    refuse(refused->code, refused->message);
    return;
  }
  client_params params;
  params.user = session_user(socket_id_);
  params.sid = socket_id_;
  params.sid_given = true;
  // Queues the 101, then frame("hello"): pusher:connection_established.
  attach(params, false, std::move(switching));
  if (!early_bytes.empty() && !consume(early_bytes)) return;
  read_after_upgrade();
}

pusher_connection::occasional_state& pusher_connection::occasional() {
  if (!occasional_) occasional_ = std::make_unique<occasional_state>();
  return *occasional_;
}

const std::string& pusher_connection::signed_in() const {
  static const std::string none;
  return occasional_ ? occasional_->signed_in : none;
}

bool pusher_connection::take_client_event_token() {
  return occasional().client_events.take(context().now(), {client_event_rate, client_event_rate});
}

void pusher_connection::release_idle() {
  release_idle_input();
  if (occasional_ && occasional_->presence.empty() && occasional_->signed_in.empty() &&
      occasional_->client_events.full(context().now(), {client_event_rate, client_event_rate}))
    occasional_.reset();
}

// Every frame costs a --client-message-rate token, as on a ringcast WebSocket: beyond it the
// client is closed 4301 (Pusher's code for a client over its rate).
void pusher_connection::over_rate(double rate) {
  static repeated_warning closed;
  closed.warn(context().now(), "Pusher client closed 4301: over --client-message-rate {}", rate);
  refuse(pusher::client_event_rate_limit, "over --client-message-rate");
}

// Nothing was sent for a while: a quiet moment to give back what reading the client took.
void pusher_connection::heartbeat() {
  release_idle();
  static const std::string ping = ws::text_frame(pusher::ping_frame_text());
  send_framed(ping);
}

void pusher_connection::send_text(std::string_view text) {
  send_framed(ws::text_frame(text));
}

void pusher_connection::refuse(std::optional<int> code, std::string_view message) {
  std::string frames = ws::text_frame(pusher::error_frame(code, message));
  if (!code || *code < 4000 || *code > 4999) return send_framed(std::move(frames));
  frames += ws::close_frame(static_cast<std::uint16_t>(*code), message);
  finish(std::move(frames));
}

bool pusher_connection::terminate() {
  session* s = current_session();
  if (!s) return false;
  context().sessions().end_connection(*s, ending::close_kicked, context().now());
  return true;
}

bool pusher_connection::wants(const message& m) const {
  return pusher_receives(m, socket_id_);
}

// A client that sent its subscribe and then only listens meets no heartbeat while messages
// flow: its input is given back at a delivery once its buckets are full again.
void pusher_connection::queued(const message& m, bool) {
  release_idle();
  pusher_ws_frame(m);  // built here, on the loop, by the first Pusher recipient of the node
}

std::size_t pusher_connection::message_buffers(const message& m, bool, frame_buffers& out) const {
  out[0] = asio::buffer(pusher_ws_frame(m));
  return 1;
}

// The one envelope of the hub's that a Pusher connection frames: hello, as its
// pusher:connection_established, whose activity_timeout is --heartbeat (the client pings when it
// has heard nothing that long; the server pings too, and closes a client silent for
// --idle-timeout).
std::string pusher_connection::frame(std::string_view event, std::string_view,
                                     std::optional<std::uint32_t>) const {
  if (event != "hello") return {};
  const auto heartbeat =
      std::chrono::duration_cast<std::chrono::seconds>(context().settings().heartbeat).count();
  return ws::text_frame(pusher::connection_established(
      socket_id_, static_cast<unsigned>(std::max<std::int64_t>(1, heartbeat))));
}

std::string pusher_connection::ending_frame(const ending_notice& notice) const {
  return ws::text_frame(pusher::error_frame(pusher_code(notice.why), reason_of(notice.why)));
}

std::string pusher_connection::closing_frame(ending why) const {
  return ws::close_frame(static_cast<std::uint16_t>(pusher_code(why)), reason_of(why));
}

pusher_door& pusher_connection::door() {
  return *context().pusher();
}

}  // namespace ringcast
