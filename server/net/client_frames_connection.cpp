#include "net/client_frames_connection.hpp"

#include <boost/asio/post.hpp>

#include <array>

#include "net/ws_handshake.hpp"

namespace ringcast {

namespace asio = boost::asio;

namespace {

// Reads per wake-up before yielding to the loop's other connections.
constexpr int reads_per_turn = 16;

}  // namespace

std::optional<client_frames_connection::accepted_upgrade> client_frames_connection::accept_upgrade(
    connection_context& ctx, connection_parts parts, const http_request& request,
    const std::optional<std::string>& extensions) {
  if (!beast_would_accept(request)) {
    beast_refuses_upgrade(ctx, std::move(parts.stream), request, extensions);
    return std::nullopt;
  }
  std::string early(static_cast<const char*>(parts.buffer.data().data()),
                    parts.buffer.data().size());
  return accepted_upgrade{.parts = {std::move(parts.stream),
                                    {},
                                    std::move(parts.slot),
                                    std::move(parts.address),
                                    parts.peer},
                          .early_bytes = std::move(early),
                          .switching = switching_protocols(request, extensions)};
}

client_frames_connection::client_input& client_frames_connection::input() {
  if (!input_) {
    input_.reset(new client_input{.reader = {client_message_limit(), max_client_frames}});
    if (deflate_) input_->reader.accept_compressed();
  }
  return *input_;
}

void client_frames_connection::release_idle_input() {
  if (input_ && !input_->reading && input_->reader.between_messages()) input_.reset();
}

// Every frame of the client costs a token (--client-message-rate a second, bursts of twice
// that): a client beyond it is closed by the door, and the rest of what it sent is dropped.
bool client_frames_connection::within_rate() {
  connection_context& ctx = context();
  const double rate = ctx.settings().client_message_rate;
  if (rate == 0 || rate_.take(ctx.now(), {rate, 2 * rate})) return true;
  ++ctx.stats().message_rate;
  reader_done_ = true;
  over_rate(rate);
  return false;
}

void client_frames_connection::read() {
  std::array<char, 512> chunk;
  for (int round = 0; round < reads_per_turn; ++round) {
    boost::system::error_code ec;
    const std::size_t n = stream().read_now(asio::buffer(chunk), ec);
    if (ec == asio::error::would_block) return wait_readable();
    if (ec) return peer_gone();  // the client went away (or, after our close, finished it)
    if (!consume({chunk.data(), n})) return;
  }
  asio::post(stream().get_executor(), [self = self()] { self->read(); });
}

// A read now would find nothing (a failing recvfrom per connect): a plaintext socket waits
// instead. The wait misses nothing that came meanwhile: asio starts it with EPOLL_CTL_MOD, which
// reports the socket's present readiness again. TLS may hold bytes the socket no longer shows.
void client_frames_connection::read_after_upgrade() {
  if (!stream().secure()) return wait_readable();
  read();
}

void client_frames_connection::wait_readable() {
  stream().async_wait_readable([self = self()](boost::system::error_code ec) {
    if (ec == asio::error::operation_aborted) return;  // closed meanwhile
    if (ec) return self->peer_gone();
    self->read();
  });
}

bool client_frames_connection::consume(std::string_view bytes) {
  // A message is handled in place, in the reader's buffer: nothing it leads to (a delivery that
  // gives back idle input) may drop the reader meanwhile.
  input().reading = true;
  while (!reader_done_) {
    ws::event e = input().reader.next(bytes);
    switch (e.type) {
      case ws::event_type::need_more:
        input_->reading = false;
        release_idle_input();
        return true;
      case ws::event_type::fragment:
        // Part of a message: costs a token like any frame, so that a stream of empty
        // continuations (which never make a message) is bounded too.
      case ws::event_type::pong:
        if (within_rate()) activity();
        break;
      case ws::event_type::text:
      case ws::event_type::binary:
        if (!within_rate()) break;
        activity();
        on_message(e.message);
        break;
      case ws::event_type::ping:
        if (!within_rate()) break;
        activity();
        send_framed(ws::pong_frame(e.payload));
        break;
      case ws::event_type::close:
        // The client's close, or its answer to ours: echo its code (RFC 6455 section 5.5.1), then
        // close once it is written.
        reader_done_ = true;
        finish(closing() ? std::string()
                         : ws::close_frame(e.code == ws::no_status ? ws::normal : e.code));
        break;
      case ws::event_type::failed:
        reader_done_ = true;
        finish(ws::close_frame(ws::close_code_for(e.why)));
        break;
    }
  }
  input_.reset();
  return true;  // after the close, bytes are read and dropped until the client hangs up
}

void client_frames_connection::close_when_written() {
  if (shut_down_) return;
  shut_down_ = true;
  stream().shutdown_send();
}

}  // namespace ringcast
