#include "poll_connection.hpp"

#include <boost/beast/http/span_body.hpp>
#include <boost/beast/http/write.hpp>

namespace ringcast {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

void poll_connection::start(connection_context& ctx, connection_parts parts, admission admitted,
                            bool known_elsewhere, http_resume resume) {
  auto c =
      std::make_shared<poll_connection>(ctx, std::move(parts), std::move(admitted.request), resume);
  c->since_ = admitted.params.since.value_or(0);
  hub& h = ctx.sessions();
  auto attached = h.attach(admitted.params, *c, ctx.now(), known_elsewhere);
  if (!attached.backlog.empty() || attached.gap) {
    h.detach(*attached.s, *c, ctx.now());
    auto body = std::make_shared<const std::string>(
        messages_json(attached.backlog, attached.last_id, attached.gap));
    c->reply(*body, body);
    return;
  }
  c->hold(*attached.s);
}

poll_connection::poll_connection(connection_context& ctx, connection_parts parts,
                                 http_request request, http_resume resume)
    : ctx_(ctx), parts_(std::move(parts)), request_(std::move(request)), resume_(resume) {}

poll_connection::~poll_connection() {
  if (held_) ctx_.sessions().detach(*held_, *this, ctx_.now());
}

void poll_connection::hold(session& s) {
  held_ = &s;
  keep_alive_while_held_ = shared_from_this();
  // Admitted just as the drain began (a Redis claim was pending): go elsewhere at once.
  if (ctx_.draining()) {
    ctx_.sessions().end_connection(s, ending::reconnect_shutdown, ctx_.now());
    return;
  }
  watch_for_hangup();
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
    reply(m->poll_body, m);
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
  auto body = std::make_shared<const std::string>(
      messages_json({messages.begin(), messages.end()}, last_id, false));
  reply(*body, body);
}

void poll_connection::end(const ending_notice& notice) {
  held_ = nullptr;  // the hub has detached us
  if (notice.why == ending::reconnect_shutdown) request_.keep_alive(false);
  auto body = std::make_shared<const std::string>(notice.json);
  reply(*body, body);
}

void poll_connection::reply(std::string_view body, std::shared_ptr<const void> keep) {
  if (replied_) return;
  replied_ = true;
  http_response head = json_response(http_status::ok, {}, request_);
  if (ctx_.draining()) head.keep_alive(false);
  announce_keep_alive(head, ctx_.settings().keepalive_timeout);
  announce_hsts(head, ctx_.settings().hsts);
  // The body is not copied: a message's reply bytes are shared by every poll it answers.
  using response = http::response<http::span_body<const char>>;
  auto res = std::make_shared<response>(std::move(head.base()));
  res->body() = {body.data(), body.size()};
  res->prepare_payload();
  auto self = shared_from_this();
  keep_alive_while_held_.reset();
  http::async_write(parts_.stream, *res,
                    [self, res, keep = std::move(keep)](beast::error_code ec, std::size_t) {
                      if (ec || !res->keep_alive()) {
                        self->parts_.stream.close();
                        return;
                      }
                      if (self->watching_) {
                        beast::error_code ignored;
                        self->parts_.stream.socket().cancel(ignored);  // end the hang-up watch
                      }
                      self->resume_(self->ctx_, std::move(self->parts_));
                    });
}

}  // namespace ringcast
