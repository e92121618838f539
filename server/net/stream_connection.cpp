#include "stream_connection.hpp"

namespace ringcast {
namespace {

// How long a client gets to take its final notice before the socket is closed under it; a client
// closed for not reading is unlikely to read its notice, and gets less.
constexpr std::chrono::seconds ending_grace{2};
constexpr std::chrono::milliseconds slow_ending_grace{250};

}  // namespace

stream_connection::stream_connection(connection_context& ctx, connection_limit::slot slot)
    : ctx_(ctx), slot_(std::move(slot)) {}

stream_connection::~stream_connection() {
  ctx_.sessions().disarm(*this);
  if (session_) ctx_.sessions().detach(*session_, *this, ctx_.now());
}

void stream_connection::attach(const client_params& params, bool known_elsewhere) {
  hub& h = ctx_.sessions();
  auto attached = h.attach(params, *this, ctx_.now(), known_elsewhere);
  session_ = attached.s;
  send_text(frame("hello", h.hello_for(attached), std::nullopt));
  for (auto& m : attached.backlog) {
    queue_.push_back({std::move(m), {}});
  }
  write_next();
  // Upgraded while the server began to drain: this client is told to go elsewhere too.
  if (ctx_.draining()) h.end_connection(*session_, ending::reconnect_shutdown, ctx_.now());
}

void stream_connection::activity() {
  if (session_) ctx_.sessions().activity(*session_, ctx_.now());
}

bool stream_connection::falling_behind() {
  if (!session_ || queue_.size() < ctx_.settings().max_queue) return false;
  ++ctx_.sessions().stats().slow;
  ctx_.sessions().end_connection(*session_, ending::close_slow, ctx_.now());  // calls end()
  return true;
}

void stream_connection::deliver(const message_ptr& m) {
  if (falling_behind()) return;
  queue_.push_back({m, {}});
  write_next();
}

// Pongs, errors and heartbeats count against --max-queue too: a client that sends without
// reading must not grow the queue either.
void stream_connection::send_text(std::string text) {
  if (ending_ || falling_behind()) return;
  queue_.push_back({nullptr, std::move(text)});
  write_next();
}

void stream_connection::end(const ending_notice& notice) {
  session_ = nullptr;  // the hub has detached us
  // Whatever is still queued is dropped (a resume finds it in history); the write in flight,
  // if any, cannot be taken back.
  queue_.clear();
  const std::string_view event = is_reconnect(notice.why) ? "reconnect" : "close";
  // A reconnect always names its delay (also 0), so an SSE client's retry: follows it.
  const auto retry = is_reconnect(notice.why) ? std::optional(notice.retry_ms) : std::nullopt;
  queue_.push_back({nullptr, frame(event, notice.json, retry)});
  ending_ = notice.why;
  ctx_.sessions().arm(*this, ctx_.now() + (notice.why == ending::close_slow
                                               ? std::chrono::milliseconds(slow_ending_grace)
                                               : std::chrono::milliseconds(ending_grace)));
  write_next();
}

void stream_connection::on_timer(time_point) {
  abort();
}

void stream_connection::peer_gone() {
  if (session_) ctx_.sessions().detach(*session_, *this, ctx_.now());
  session_ = nullptr;
  failed_ = true;
}

void stream_connection::write_next() {
  if (in_flight_ || failed_) return;
  if (queue_.empty()) {
    if (ending_) close_after_notice(*ending_);
    return;
  }
  in_flight_ = queue_.items().front();
  queue_.pop_front(1);
  write(*in_flight_);
}

void stream_connection::write_done(boost::system::error_code ec) {
  in_flight_.reset();
  if (ec) {
    peer_gone();
    abort();
    return;
  }
  write_next();
}

}  // namespace ringcast
