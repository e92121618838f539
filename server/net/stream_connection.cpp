#include "net/stream_connection.hpp"

#include <boost/asio/error.hpp>

#include <span>

namespace ringcast {
namespace {

// How long a client gets to take its final notice before the socket is closed under it; a client
// closed for not reading is unlikely to read its notice, and gets less.
constexpr std::chrono::seconds ending_grace{2};
constexpr std::chrono::milliseconds slow_ending_grace{250};

// One gathered write takes at most this many buffers and about this many bytes: a client far
// behind is caught up over several writes, each one socket call.
constexpr std::size_t max_gather = 48;
constexpr std::size_t max_gather_bytes = 256 * 1024;

}  // namespace

stream_connection::stream_connection(connection_context& ctx, connection_parts parts,
                                     connection_kind kind)
    : registered_connection(ctx.connections(), kind, connection_state::busy),
      ctx_(ctx),
      slot_(std::move(parts.slot)),
      address_(std::move(parts.address)),
      stream_(std::move(parts.stream)) {}

stream_connection::~stream_connection() {
  ctx_.timers().disarm(*this);
  if (session_) ctx_.sessions().detach(*session_, *this, ctx_.now());
}

void stream_connection::attach(const client_params& params, bool known_elsewhere,
                               std::string head) {
  hub& h = ctx_.sessions();
  auto attached = h.attach(params, *this, ctx_.now(), known_elsewhere);
  session_ = attached.s;
  highest_id_ = params.since.value_or(0);
  std::vector<outbound> first;
  first.reserve(attached.backlog.size() + 3);
  if (!head.empty()) first.push_back({nullptr, std::move(head)});
  first.push_back({nullptr, frame("hello", h.hello_for(attached), std::nullopt)});
  for (auto& m : attached.backlog)
    if (wants(*m)) first.push_back(numbered(std::move(m)));
  // Without `since` the backlog is the promotions in force (and rewind), older than hello's
  // last_id: the client resumes from last_id, not from them (docs/protocol.md, "Rewind").
  if (!params.since && !attached.backlog.empty()) {
    if (std::string frame = resume_point_frame(attached.last_id); !frame.empty())
      first.push_back({nullptr, std::move(frame)});
    highest_id_ = std::max(highest_id_, attached.last_id);
  }
  send(first);
  // Upgraded while the server began to drain: this client is told to go elsewhere too.
  if (ctx_.draining() && session_) {
    h.end_connection(*session_, ending::reconnect_shutdown, ctx_.now());
  }
}

void stream_connection::activity() {
  if (session_) ctx_.sessions().activity(*session_, ctx_.now());
}

bool stream_connection::falling_behind() {
  if (!session_ || queue_.size() < ctx_.settings().max_queue) return false;
  ++ctx_.stats().slow;
  ctx_.sessions().end_connection(*session_, ending::close_slow, ctx_.now());  // calls end()
  return true;
}

// A client that keeps up has each message written here as it comes, straight from the message: no
// queue item, so no copy of the message's shared pointer (an atomic increment and decrement on a
// line every loop delivering the message writes; docs/performance.md section 19).
void stream_connection::deliver(const message_ptr& m) {
  if (closing_ || !wants(*m) || falling_behind()) return;
  const bool unnumbered = number(*m);
  if (queue_.empty() && !waiting_ && !failed_) {
    frame_buffers parts;
    const std::span buffers(parts.data(), message_buffers(*m, unnumbered, parts));
    boost::system::error_code ec;
    const std::size_t taken = stream_.write_now(buffers, ec);
    if (ec && ec != boost::asio::error::would_block) return peer_gone();
    if (!ec) {
      ctx_.stats().bytes_written += taken;
      if (taken == boost::asio::buffer_size(buffers)) return;
      written_ = taken;  // the rest waits in the queue, from here
    }
  }
  push({.msg = m, .text = {}, .unnumbered = unnumbered});
  flush();
}

bool stream_connection::number(const message& m) {
  const bool unnumbered = m.spread.count() > 0 && m.id < highest_id_ && numbers_frames();
  if (!unnumbered) highest_id_ = std::max(highest_id_, m.id);
  queued(m, unnumbered);
  return unnumbered;
}

outbound stream_connection::numbered(message_ptr m) {
  const bool unnumbered = number(*m);
  return {.msg = std::move(m), .text = {}, .unnumbered = unnumbered};
}

// A frame queued behind one that is waiting for the socket waits from now.
void stream_connection::push(outbound item) {
  if (waiting_) item.waiting_since = ctx_.now();
  queue_.push_back(std::move(item));
}

// Pongs, errors and heartbeats count against --max-queue too: a client that sends without
// reading must not grow the queue either.
void stream_connection::send_framed(std::string framed) {
  if (closing_ || falling_behind()) return;
  outbound item{nullptr, std::move(framed)};
  send({&item, 1});
}

// What was not started is dropped (a resume finds messages in history); a frame half written is
// kept, or the stream would be corrupt.
void stream_connection::drop_unstarted() {
  if (queue_.empty()) return;
  outbound started;
  if (written_ > 0) started = queue_.items().front();
  queue_.clear();
  if (written_ > 0) queue_.push_back(std::move(started));
}

void stream_connection::end(const ending_notice& notice) {
  session_ = nullptr;  // the hub has detached us
  drop_unstarted();
  push({nullptr, ending_frame(notice)});
  if (auto tail = closing_frame(notice.why); !tail.empty()) push({nullptr, tail});
  closing_ = true;
  grace_until_ =
      ctx_.now() + (notice.why == ending::close_slow ? std::chrono::milliseconds(slow_ending_grace)
                                                     : std::chrono::milliseconds(ending_grace));
  arm_deadline();
  flush();
}

std::string stream_connection::ending_frame(const ending_notice& notice) const {
  const std::string_view event = is_reconnect(notice.why) ? "reconnect" : "close";
  // A reconnect always names its delay (also 0), so an SSE client's retry: follows it.
  const auto retry = is_reconnect(notice.why) ? std::optional(notice.retry_ms) : std::nullopt;
  return frame(event, notice.json, retry);
}

void stream_connection::finish(std::string last_frame) {
  if (session_) ctx_.sessions().detach(*session_, *this, ctx_.now());
  session_ = nullptr;
  if (closing_) return;  // already ending: the close the client answers is on its way
  drop_unstarted();
  if (!last_frame.empty()) push({nullptr, std::move(last_frame)});
  closing_ = true;
  grace_until_ = ctx_.now() + std::chrono::milliseconds(ending_grace);
  arm_deadline();
  flush();
}

void stream_connection::on_timer(time_point now) {
  if (now >= grace_until_) {
    failed_ = true;
    stream_.close();
    return;
  }
  if (write_due() <= now) {
    ++ctx_.stats().write_timeout;
    peer_gone();
    return;
  }
  arm_deadline();  // the frame that was waiting went out: the next one's deadline, if any
}

stream_connection::time_point stream_connection::write_due() const {
  if (queue_.empty()) return time_point::max();
  const time_point since = queue_.items().front().waiting_since;
  return since == time_point::max() ? since : since + ctx_.settings().write_timeout;
}

void stream_connection::arm_deadline() {
  const time_point due = std::min(grace_until_, write_due());
  if (due != time_point::max()) ctx_.timers().arm(*this, due);
}

void stream_connection::peer_gone() {
  if (session_) ctx_.sessions().detach(*session_, *this, ctx_.now());
  session_ = nullptr;
  failed_ = true;
  stream_.close();
}

std::size_t stream_connection::buffers_of(const outbound& item, frame_buffers& out) const {
  if (item.msg) return message_buffers(*item.msg, item.unnumbered, out);
  out[0] = boost::asio::buffer(item.text);
  return 1;
}

std::size_t stream_connection::unwritten_buffers_of(const outbound& item, std::size_t& skip,
                                                    frame_buffers& out) const {
  frame_buffers all;
  const std::size_t n = buffers_of(item, all);
  std::size_t kept = 0;
  for (std::size_t i = 0; i < n; ++i) {
    boost::asio::const_buffer b = all[i];
    if (skip >= b.size()) {
      skip -= b.size();
      continue;
    }
    b += skip;
    skip = 0;
    out[kept++] = b;
  }
  return kept;
}

// One gathered write of `items`, from `skip` bytes into the first: what the socket took.
std::size_t stream_connection::write_gathered(std::span<const outbound> items, std::size_t skip,
                                              boost::system::error_code& ec) {
  std::array<boost::asio::const_buffer, max_gather> buffers;
  std::size_t count = 0, bytes = 0;
  for (const outbound& item : items) {
    if ((count + std::tuple_size_v<frame_buffers>) > max_gather || bytes >= max_gather_bytes) break;
    frame_buffers parts;
    const std::size_t n = unwritten_buffers_of(item, skip, parts);
    for (std::size_t i = 0; i < n; ++i) {
      buffers[count++] = parts[i];
      bytes += parts[i].size();
    }
  }
  const std::size_t n = stream_.write_now(std::span(buffers.data(), count), ec);
  if (!ec) ctx_.stats().bytes_written += n;
  return n;
}

std::size_t stream_connection::whole_items(std::span<const outbound> items,
                                           std::size_t& bytes) const {
  std::size_t done = 0;
  for (const outbound& item : items) {
    frame_buffers parts;
    const std::size_t parts_count = buffers_of(item, parts);
    std::size_t size = 0;
    for (std::size_t i = 0; i < parts_count; ++i)
      size += parts[i].size();
    if (bytes < size) break;
    bytes -= size;
    ++done;
  }
  return done;
}

// Most frames never reach the queue: a client that keeps up has each written here as it comes,
// and its queue holds no storage while it idles.
void stream_connection::send(std::span<outbound> items) {
  while (!items.empty() && queue_.empty() && !waiting_ && !failed_) {
    boost::system::error_code ec;
    std::size_t taken = write_gathered(items, 0, ec);
    if (ec == boost::asio::error::would_block) break;
    if (ec) return peer_gone();
    items = items.subspan(whole_items(items, taken));
    if (taken > 0) {  // into the next frame: it goes first into the queue, this much written
      written_ = taken;
      break;
    }
  }
  for (outbound& item : items)
    push(std::move(item));
  flush();
}

void stream_connection::flush() {
  if (waiting_ || failed_) return;
  while (!queue_.empty()) {
    boost::system::error_code ec;
    const std::size_t n = write_gathered(queue_.items(), written_, ec);
    if (ec == boost::asio::error::would_block) {
      wait_until_writable();
      return;
    }
    if (ec) {
      peer_gone();
      return;
    }
    // Pop the items written whole; remember how far into the next one the write got.
    std::size_t left = written_ + n;
    queue_.pop_front(whole_items(queue_.items(), left));
    written_ = left;
  }
  if (closing_) close_when_written();
}

// The socket took less than was queued: what is left has waited since now (or earlier), and the
// write deadline runs (lazily: a timer that finds the queue written re-arms or stops).
void stream_connection::wait_until_writable() {
  // Only frames queued while the socket took everything lack a time, and they are the newest.
  const time_point now = ctx_.now();
  const auto items = queue_.items();
  for (auto it = items.rbegin(); it != items.rend() && it->waiting_since == time_point::max(); ++it)
    it->waiting_since = now;
  arm_deadline();
  waiting_ = true;
  stream_.async_wait_writable([self = shared_from_this()](boost::system::error_code ec) {
    self->waiting_ = false;
    if (ec == boost::asio::error::operation_aborted) return;  // closed meanwhile
    if (ec) return self->peer_gone();
    self->flush();
  });
}

}  // namespace ringcast
