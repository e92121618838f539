#include "net/poll_connection.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/http/span_body.hpp>
#include <boost/beast/http/write.hpp>

#include <boost/url/parse.hpp>
#include <boost/url/url.hpp>

#include <sstream>

#include "core/message_deflate.hpp"
#include "protocol/gzip_stream.hpp"

namespace ringcast {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

namespace {

// `target` (origin-form, as the request had it) with `since` set to `id`.
std::optional<std::string> with_since(std::string_view target, std::uint64_t id) {
  auto parsed = boost::urls::parse_origin_form(target);
  if (!parsed) return std::nullopt;
  boost::urls::url u = *parsed;
  u.params().set("since", std::to_string(id));
  return std::string(u.encoded_target());
}

}  // namespace

void poll_connection::start(connection_context& ctx, connection_parts parts, admission admitted,
                            bool known_elsewhere, http_resume resume) {
  auto c =
      std::make_shared<poll_connection>(ctx, std::move(parts), std::move(admitted.request), resume);
  c->since_ = admitted.params.since.value_or(0);
  c->cors_ = std::move(admitted.cors);
  const auto accept = c->request_.find(http::field::accept_encoding);
  c->gzip_ =
      ctx.settings().compression && accept != c->request_.end() && gzip::accepted(accept->value());
  hub& h = ctx.sessions();
  auto attached = h.attach(admitted.params, *c, ctx.now(), known_elsewhere);
  if (!attached.backlog.empty() || attached.gap) {
    h.detach(*attached.s, *c, ctx.now());
    c->reply_messages(std::move(attached.backlog), attached.last_id, attached.gap, attached.more);
    return;
  }
  c->hold(*attached.s);
}

poll_connection::poll_connection(connection_context& ctx, connection_parts parts,
                                 http_request request, http_resume resume)
    : loop_timer(ctx.timers()),
      registered_connection(ctx.connections(), connection_kind::poll, connection_state::idle),
      ctx_(ctx),
      parts_(std::move(parts)),
      request_(std::move(request)),
      resume_(resume) {}

poll_connection::~poll_connection() {
  if (held_) ctx_.sessions().detach(*held_, *this, ctx_.now());
}

void poll_connection::hold(session& s) {
  held_ = &s;
  keep_alive_while_held_ = shared_from_this();
  set_state(connection_state::parked);  // held: an upgrade takes it along
  // The request's read buffer (its capacity is the header limit, 8 KiB) is not needed while held
  // unless a pipelined request is in it: the next request's read prepares one again.
  parts_.buffer.shrink_to_fit();
  // Admitted just as the drain began (a Redis claim was pending): go elsewhere at once.
  if (ctx_.draining()) {
    ctx_.sessions().end_connection(s, ending::reconnect_shutdown, ctx_.now());
    return;
  }
  watch_for_hangup();
}

std::size_t poll_connection::replies_in_flight(const connection_registry& loop) {
  return loop.count(connection_kind::poll, connection_state::busy);
}

std::size_t poll_connection::capture_loop(connection_registry& loop, std::vector<moved_http>& out) {
  std::vector<poll_connection*> secure;
  loop.for_each<poll_connection>(connection_kind::poll, [&](poll_connection& p) {
    if (p.state() != connection_state::parked || !p.held_) return;  // abandoned
    if (p.parts_.stream.secure()) {
      secure.push_back(&p);
    } else if (auto m = p.capture()) {
      out.push_back(std::move(*m));
    }
  });
  for (poll_connection* p : secure) {
    if (p->held_)
      p->ctx_.sessions().end_connection(*p->held_, ending::reconnect_shutdown, p->ctx_.now());
  }
  return secure.size();
}

// Every publish numbered before the loops stopped has reached this loop, and none reached this
// poll (it would have been answered): it stands at the newest id this loop knows, or the
// client's own `since` if that is further. Paced turns it is owed below it travel with its
// session. What the client pipelined behind the poll follows the request.
std::optional<moved_http> poll_connection::capture() {
  const auto target = with_since(request_.target(), std::max(since_, ctx_.sessions().newest_id()));
  if (!target) return std::nullopt;
  http_request again = request_;
  again.target(*target);
  std::ostringstream bytes;
  bytes << again;
  moved_http m;
  m.fd = parts_.stream.socket().native_handle();
  boost::system::error_code ec;
  m.v6 = parts_.stream.socket().local_endpoint(ec).address().is_v6();
  if (ec) return std::nullopt;
  m.held_poll = true;
  m.unread = std::move(bytes).str();
  const auto pipelined = parts_.buffer.data();
  m.unread.append(static_cast<const char*>(pipelined.data()), pipelined.size());
  return m;
}

// While a poll is held nothing is read (a pipelined request must wait for the reply), but a client
// that goes away should free its session at once rather than at the poll timeout: wait for the
// socket to become readable without consuming anything.
void poll_connection::watch_for_hangup() {
  watching_ = true;
  parts_.stream.socket().async_wait(
      tcp::socket::wait_read, [self = shared_from_this()](beast::error_code ec) {
        self->watching_ = false;
        if (ec || !self->held_) return;
        switch (self->parts_.stream.probe_readable()) {
          case net_stream::readable_state::data:
            return;  // a pipelined request: it is read after the reply
          case net_stream::readable_state::nothing:
            self->watch_for_hangup();  // TLS housekeeping, or a stale wake-up
            return;
          case net_stream::readable_state::closed:
            self->abandon();
            return;
        }
      });
}

void poll_connection::abandon() {
  ctx_.sessions().detach(*std::exchange(held_, nullptr), *this, ctx_.now());
  parts_.stream.close();
  keep_alive_while_held_.reset();  // last: this may release the connection
}

void poll_connection::deliver(const message_ptr& m) {
  if (m->spread.count() == 0 || m->id >= since_) {
    session* s = std::exchange(held_, nullptr);
    ctx_.sessions().detach(*s, *this, ctx_.now());
    reply_one(m);
    return;
  }
  deliver_many(std::span(&m, 1));
}

// Paced messages whose turn came together; their ids may be below the client's `since` (it
// resumes from the highest id it has), so the reply's last_id is never below it.
void poll_connection::deliver_many(std::span<const message_ptr> messages) {
  if (messages.empty()) return;
  session* s = std::exchange(held_, nullptr);
  ctx_.sessions().detach(*s, *this, ctx_.now());
  std::uint64_t last_id = since_;
  for (const auto& m : messages)
    last_id = std::max(last_id, m->id);
  reply_messages({messages.begin(), messages.end()}, last_id, false, false);
}

void poll_connection::end(const ending_notice& notice) {
  held_ = nullptr;  // the hub has detached us
  if (notice.why == ending::reconnect_shutdown) request_.keep_alive(false);
  auto body = std::make_shared<const std::string>(notice.json);
  reply(*body, body);
}

// The client does not take its reply: closing the stream ends the write with an error.
void poll_connection::on_timer(time_point) {
  ++ctx_.stats().write_timeout;
  parts_.stream.close();
}

http_response poll_connection::begin_reply() {
  replied_ = true;
  set_state(connection_state::busy);  // an upgrade waits for the reply
  http_response head = json_response(http_status::ok, {}, request_);
  if (ctx_.draining()) head.keep_alive(false);
  announce_keep_alive(head, ctx_.settings().keepalive_timeout);
  announce_hsts(head, ctx_.settings().hsts_max_age);
  add_cors_headers(head, cors_);
  keep_alive_while_held_.reset();
  arm_at(ctx_.now() + ctx_.settings().write_timeout);
  return head;
}

void poll_connection::after_reply(beast::error_code ec, std::size_t written, bool keep_alive) {
  disarm();
  set_state(connection_state::idle);
  ctx_.stats().bytes_written += written;
  if (ec || !keep_alive) {
    parts_.stream.close();
    return;
  }
  if (watching_) {
    beast::error_code ignored;
    parts_.stream.socket().cancel(ignored);  // end the hang-up watch
  }
  resume_(ctx_, std::move(parts_));
}

void poll_connection::reply(std::string_view body, std::shared_ptr<const void> keep, bool gzip) {
  if (replied_) return;
  http_response head = begin_reply();
  if (gzip) head.set(http::field::content_encoding, "gzip");
  // The body is not copied: a message's reply bytes are shared by every poll it answers.
  using response = http::response<http::span_body<const char>>;
  auto res = std::make_shared<response>(std::move(head.base()));
  res->body() = {body.data(), body.size()};
  res->prepare_payload();
  http::async_write(
      parts_.stream, *res,
      [self = shared_from_this(), res, keep = std::move(keep)](
          beast::error_code ec, std::size_t n) { self->after_reply(ec, n, res->keep_alive()); });
}

// A client that accepts gzip gets the message's prebuilt gzip reply, when it is shorter.
void poll_connection::reply_one(const message_ptr& m) {
  if (gzip_ && m->json.size() >= ctx_.settings().compress_min_bytes) {
    loop_stats& stats = ctx_.stats();
    if (const std::string& body = poll_gzip_body(*m, stats); !body.empty()) {
      ++stats.compressed_sent;
      stats.compression_saved += m->poll_body.size() - body.size();
      reply(body, m, true);
      return;
    }
  }
  reply(m->poll_body, m);
}

// The bytes of a reply of several messages: the messages' shared bytes (plain, or their gzip
// pieces) and a few of this reply's own; nothing of a message is copied, so a client that does
// not read its reply holds only these (docs/security.md, "Budget").
struct poll_connection::gathered {
  std::vector<message_ptr> messages;  // hold the bytes the buffers point into
  std::string head, body_start, body_end;
  std::vector<boost::asio::const_buffer> buffers;
  std::size_t body_length = 0;
  void add(std::string_view bytes) {
    buffers.push_back(boost::asio::buffer(bytes.data(), bytes.size()));
    body_length += bytes.size();
  }
};

void poll_connection::reply_messages(std::vector<message_ptr> messages, std::uint64_t last_id,
                                     bool gap, bool more) {
  if (replied_) return;
  const std::string tail = messages_tail(last_id, gap, more);
  // One message, and the reply a held poll would get: its prebuilt bytes (and gzip body).
  if (messages.size() == 1 && messages[0]->poll_body.ends_with(tail)) {
    reply_one(messages[0]);
    return;
  }
  auto g = std::make_shared<gathered>();
  g->messages = std::move(messages);
  if (gzip_ && gather_gzipped(*g, tail)) return write_gathered(std::move(g), true);
  g->body_end = tail;
  g->buffers.reserve(2 * g->messages.size() + 3);
  g->buffers.emplace_back();  // the head, once the length is known
  g->add(messages_head);
  for (std::size_t i = 0; i < g->messages.size(); ++i) {
    if (i) g->add(messages_separator);
    g->add(g->messages[i]->json);
  }
  g->add(g->body_end);
  write_gathered(std::move(g), false);
}

// Several messages gzipped: one gzip member of each message's piece, made once per node, between
// the constant pieces and this reply's tail (gzip_stream.hpp), so a request deflates only its
// tail and holds only its head and end. Used when the plain reply is at least
// --compress-min-bytes and the gzip body is shorter; false (nothing added) otherwise.
bool poll_connection::gather_gzipped(gathered& g, std::string_view tail) {
  std::size_t plain_length = messages_head.size() + tail.size();
  for (std::size_t i = 0; i < g.messages.size(); ++i)
    plain_length += g.messages[i]->json.size() + (i ? messages_separator.size() : 0);
  if (plain_length < ctx_.settings().compress_min_bytes) return false;
  static const gzip::measured_piece head_piece = gzip::measure(messages_head);
  static const gzip::measured_piece separator_piece = gzip::measure(messages_separator);
  const gzip::measured_piece tail_piece = gzip::measure(tail);
  loop_stats& stats = ctx_.stats();
  std::vector<const gzip::measured_piece*> pieces;
  pieces.reserve(2 * g.messages.size() + 2);
  pieces.push_back(&head_piece);
  std::size_t gzip_length = gzip::header().size() + head_piece.deflated.size();
  for (std::size_t i = 0; i < g.messages.size(); ++i) {
    if (i) pieces.push_back(&separator_piece);
    pieces.push_back(&poll_json_piece(*g.messages[i], stats));
    gzip_length += (i ? separator_piece.deflated.size() : 0) + pieces.back()->deflated.size();
  }
  pieces.push_back(&tail_piece);
  g.body_end = tail_piece.deflated + gzip::member_end(pieces);
  gzip_length += g.body_end.size();
  if (gzip_length >= plain_length) return false;
  stats.compressed_sent += g.messages.size();
  stats.compression_saved += plain_length - gzip_length;
  g.body_start = std::string(gzip::header()) + head_piece.deflated;
  g.buffers.reserve(2 * g.messages.size() + 2);
  g.buffers.emplace_back();  // the head, once the length is known
  g.add(g.body_start);
  for (std::size_t i = 0; i < g.messages.size(); ++i) {
    if (i) g.add(separator_piece.deflated);
    g.add(g.messages[i]->poll_json_piece.deflated);  // built above, by poll_json_piece
  }
  g.add(g.body_end);
  return true;
}

void poll_connection::write_gathered(std::shared_ptr<gathered> g, bool gzip) {
  http_response res = begin_reply();
  if (gzip) res.set(http::field::content_encoding, "gzip");
  res.content_length(g->body_length);
  const bool keep_alive = res.keep_alive();
  std::ostringstream head;
  head << res.base();
  g->head = std::move(head).str();
  g->buffers.front() = boost::asio::buffer(g->head);
  boost::asio::async_write(
      parts_.stream, g->buffers,
      [self = shared_from_this(), g, keep_alive](beast::error_code ec, std::size_t n) {
        self->after_reply(ec, n, keep_alive);
      });
}

}  // namespace ringcast
