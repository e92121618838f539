#include "sse_client.hpp"

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <optional>

#include "sse_parser.hpp"

namespace ringcast::load {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using error_code = boost::system::error_code;

struct sse_client::connection {
  connection(asio::io_context& io, sse_parser::handler on_event)
      : stream(net_stream::socket_type(io)),
        header_deadline(io.get_executor()),
        events(std::move(on_event)) {
    parser.body_limit(boost::none);
    parser.eager(true);
  }
  net_stream stream;
  deadline header_deadline;  // from the request to the response header
  beast::flat_buffer buffer;
  http::request<http::empty_body> request;
  http::response_parser<http::buffer_body> parser;
  char body[16 * 1024];
  sse_parser events;
  std::optional<reaction> pending;  // set by an event that ends the connection
  bool abandoned = false;
};

void sse_client::open() {
  // The event handler books envelopes; reacting to one (which drops this very connection) waits
  // until the parser has returned.
  auto c = std::make_shared<connection>(ctx_.io, nullptr);
  std::weak_ptr<connection> weak = c;
  c->events = sse_parser([this, weak](std::string_view, std::string_view data) {
    auto self = weak.lock();
    if (!self || self->pending) return;
    const auto r = envelope(data, realtime_us());
    established();
    if (r.what != reaction::kind::keep) self->pending = r;
  });
  conn_ = c;
  connection_started();
  c->request = {http::verb::get, path("/sse"), 11};
  c->request.set(http::field::host, id_.server.address().to_string());
  c->request.set(http::field::accept, "text/event-stream");
  if (const auto since = state().since()) {
    c->request.set("Last-Event-ID", std::to_string(*since));
  }
  ctx_.net.connect(
      c->stream, id_.server, id_.source, connect_timeout, [this, c](std::string_view failure) {
        if (c->abandoned) return;
        if (!failure.empty()) return failed(std::string(failure));
        c->header_deadline.arm(c->stream, connect_timeout);
        http::async_write(c->stream, c->request, [this, c](error_code wec, std::size_t) {
          if (c->abandoned) return;
          if (wec) return failed("sse_write");
          http::async_read_header(c->stream, c->buffer, c->parser,
                                  [this, c](error_code hec, std::size_t) {
                                    if (c->abandoned) return;
                                    if (hec) return failed("sse_read");
                                    const auto status = c->parser.get().result_int();
                                    if (status != 200)
                                      return failed("http_" + std::to_string(status));
                                    // From here heartbeat comments keep the response alive.
                                    c->header_deadline.cancel();
                                    read_body(c);
                                  });
        });
      });
}

void sse_client::read_body(std::shared_ptr<connection> c) {
  c->parser.get().body().data = c->body;
  c->parser.get().body().size = sizeof c->body;
  // read_some, not read: read would wait for the 16 KiB buffer to fill before returning.
  http::async_read_some(c->stream, c->buffer, c->parser, [this, c](error_code ec, std::size_t) {
    if (c->abandoned) return;
    if (ec && ec != http::error::need_buffer) return failed("sse_read");
    const auto got = sizeof c->body - c->parser.get().body().size;
    c->events.feed({c->body, got});
    if (c->pending) return react(*c->pending);
    // The server ended the response without saying why.
    if (c->parser.is_done()) return failed("sse_ended");
    read_body(c);
  });
}

void sse_client::drop() {
  if (!conn_) return;
  conn_->abandoned = true;
  conn_->header_deadline.cancel();
  conn_->stream.close();
  conn_.reset();
}

}  // namespace ringcast::load
