#include "poll_client.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <optional>

namespace ringcast::load {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using error_code = boost::system::error_code;

struct poll_client::connection {
  explicit connection(asio::io_context& io)
      : stream(net_stream::socket_type(io)), reply_deadline(io.get_executor()), wait(io) {}
  net_stream stream;
  deadline reply_deadline;  // poll_deadline per request
  beast::flat_buffer buffer;
  http::request<http::empty_body> request;
  std::optional<http::response_parser<http::string_body>> parser;
  asio::steady_timer wait;  // retry_ms between a `reconnect` reply and the next poll
  bool abandoned = false;
};

// The server holds a poll for --poll-timeout (25 s by default); a reply much later than that
// means the connection is dead.
constexpr auto poll_deadline = std::chrono::seconds(60);

void poll_client::open() {
  auto c = std::make_shared<connection>(ctx_.io);
  conn_ = c;
  connection_started();
  ctx_.net.connect(c->stream, id_.server, id_.source, connect_timeout,
                   [this, c](std::string_view failure) {
                     if (c->abandoned) return;
                     if (!failure.empty()) return failed(std::string(failure));
                     // Long-poll has no hello: being connected with the poll sent is all a client
                     // waits for.
                     established();
                     poll(c);
                   });
}

void poll_client::poll(std::shared_ptr<connection> c) {
  c->request = {http::verb::get, path("/poll"), 11};
  c->request.set(http::field::host, id_.server.address().to_string());
  c->request.keep_alive(true);
  c->parser.emplace();
  c->parser->body_limit(8 * 1024 * 1024);
  c->reply_deadline.arm(c->stream, poll_deadline);
  http::async_write(c->stream, c->request, [this, c](error_code ec, std::size_t) {
    if (c->abandoned) return;
    if (ec) return failed("poll_write");
    http::async_read(c->stream, c->buffer, *c->parser, [this, c](error_code rec, std::size_t) {
      if (c->abandoned) return;
      if (rec) return failed(c->reply_deadline.expired() ? "poll_timeout" : "poll_read");
      c->reply_deadline.cancel();
      const auto& res = c->parser->get();
      if (res.result_int() != 200) return failed("http_" + std::to_string(res.result_int()));
      const auto r = envelope(res.body(), realtime_us());
      if (r.what == reaction::kind::give_up) return react(r);
      if (!res.keep_alive()) {
        // The server closed the connection after this reply: poll again on a new one.
        return react({reaction::kind::reconnect, r.delay});
      }
      if (r.delay.count() == 0) return poll(c);
      c->wait.expires_after(r.delay);
      c->wait.async_wait([this, c](error_code wec) {
        if (!wec && !c->abandoned) poll(c);
      });
    });
  });
}

void poll_client::drop() {
  if (!conn_) return;
  conn_->abandoned = true;
  conn_->wait.cancel();
  conn_->reply_deadline.cancel();
  conn_->stream.close();
  conn_.reset();
}

}  // namespace ringcast::load
