#include "hooks/http_exchange.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <optional>

#include <fmt/format.h>

#include "hooks/backend_pool.hpp"
#include "tls/net_stream.hpp"

namespace ringcast {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using boost::system::error_code;
using tcp = asio::ip::tcp;

class exchange final : public http_exchange, public std::enable_shared_from_this<exchange> {
 public:
  exchange(asio::io_context& io, const http_url& url, std::shared_ptr<const tls_context> tls,
           std::size_t max_body, handler done, std::shared_ptr<backend_pool> pool)
      : io_(io),
        url_(url),
        tls_(std::move(tls)),
        resolver_(io),
        stream_(stream_socket(io)),
        max_body_(max_body),
        done_(std::move(done)),
        pool_(std::move(pool)) {
    new_parser();
  }

  void start(std::string body, std::vector<header> headers) {
    request_.method(http::verb::post);
    request_.target(url_.target);
    request_.set(http::field::host, url_.port == (url_.tls ? 443 : 80)
                                        ? url_.host
                                        : fmt::format("{}:{}", url_.host, url_.port));
    request_.set(http::field::user_agent, "ringcast");
    request_.set(http::field::content_type, "application/json");
    for (auto& [name, value] : headers)
      request_.set(name, value);
    request_.body() = std::move(body);
    request_.keep_alive(pool_ != nullptr);
    request_.prepare_payload();
    if (url_.tls && !tls_) return fail("https needs a TLS client context");
    if (pool_) {
      if (auto idle = pool_->take()) {
        stream_ = std::move(*idle);
        reused_ = true;
        return send();
      }
    }
    connect();
  }

  void cancel() override {
    if (finished_) return;
    cancelled_ = true;
    resolver_.cancel();
    error_code ignored;
    stream_.socket().close(ignored);
    // Whatever was pending completes with an error and reports `cancelled`; if nothing was
    // (between two steps), the next step sees cancelled_.
  }

 private:
  void new_parser() {
    parser_.emplace();
    parser_->body_limit(max_body_);
    parser_->header_limit(16 * 1024);
  }

  void connect() {
    resolver_.async_resolve(
        url_.host, std::to_string(url_.port),
        [self = shared_from_this()](error_code ec, tcp::resolver::results_type r) {
          self->on_resolved(ec, std::move(r));
        });
  }

  // A kept-alive connection the backend closed just as it was taken fails before any answer:
  // the request is sent again once, on a connection of its own (the backend has not seen it).
  bool retry_fresh() {
    if (!reused_ || cancelled_ || parser_->got_some()) return false;
    reused_ = false;
    stream_.close();
    stream_ = net_stream(stream_socket(io_));
    buffer_.clear();
    new_parser();
    connect();
    return true;
  }
  void on_resolved(error_code ec, tcp::resolver::results_type results) {
    if (cancelled_) return fail("cancelled");
    if (ec) return fail("cannot resolve " + url_.host + ": " + ec.message());
    asio::async_connect(stream_.socket(), results,
                        [self = shared_from_this()](error_code cec, const tcp::endpoint&) {
                          self->on_connected(cec);
                        });
  }

  void on_connected(error_code ec) {
    if (cancelled_) return fail("cancelled");
    if (ec) return fail("connect failed: " + ec.message());
    error_code ignored;
    stream_.socket().set_option(tcp::no_delay(true), ignored);
    if (!url_.tls) return send();
    auto session = tls_->new_session(stream_.socket().native_handle(), url_.host);
    if (!session) return fail("cannot start TLS");
    stream_ = net_stream(std::move(stream_.socket()), std::move(session));
    stream_.async_handshake([self = shared_from_this()](error_code hec) {
      if (self->cancelled_) return self->fail("cancelled");
      if (hec) return self->fail("TLS handshake failed: " + hec.message());
      self->send();
    });
  }

  void send() {
    http::async_write(stream_, request_, [self = shared_from_this()](error_code ec, std::size_t) {
      if (self->cancelled_) return self->fail("cancelled");
      if (ec) return self->retry_fresh() ? void() : self->fail("write failed: " + ec.message());
      http::async_read(self->stream_, self->buffer_, *self->parser_,
                       [self](error_code rec, std::size_t) { self->on_read(rec); });
    });
  }

  void on_read(error_code ec) {
    if (cancelled_) return fail("cancelled");
    if (ec == http::error::body_limit)
      return fail(fmt::format("answer body over {} bytes", max_body_));
    if (ec) return retry_fresh() ? void() : fail("no answer: " + ec.message());
    auto& response = parser_->get();
    // Whole, kept alive, nothing more in flight: the connection can carry the next POST.
    keep_ = pool_ && response.keep_alive() && buffer_.size() == 0;
    http_answer a;
    a.status = response.result_int();
    a.content_type = std::string(response[http::field::content_type]);
    a.body = std::move(response.body());
    finish(std::move(a));
  }

  void fail(std::string why) {
    http_answer a;
    a.failure = std::move(why);
    finish(std::move(a));
  }

  void finish(http_answer a) {
    if (finished_) return;
    finished_ = true;
    if (keep_ && !cancelled_) {
      pool_->give_back(std::move(stream_));
    } else {
      error_code ignored;
      stream_.socket().close(ignored);
    }
    asio::post(io_, [done = std::move(done_), a = std::move(a)]() mutable { done(std::move(a)); });
  }

  asio::io_context& io_;
  http_url url_;
  std::shared_ptr<const tls_context> tls_;
  tcp::resolver resolver_;
  net_stream stream_;
  boost::beast::flat_buffer buffer_;
  http::request<http::string_body> request_;
  std::optional<http::response_parser<http::string_body>> parser_;
  std::size_t max_body_;
  handler done_;
  std::shared_ptr<backend_pool> pool_;  // none: one connection per POST, closed after it
  bool reused_ = false;                 // stream_ came from pool_
  bool keep_ = false;                   // give stream_ back to pool_ when done
  bool cancelled_ = false;
  bool finished_ = false;
};

}  // namespace

std::shared_ptr<http_exchange> http_exchange::post(asio::io_context& io, const http_url& url,
                                                   std::shared_ptr<const tls_context> tls,
                                                   std::string body, std::vector<header> headers,
                                                   std::size_t max_answer_body, handler done,
                                                   std::shared_ptr<backend_pool> pool) {
  auto x = std::make_shared<exchange>(io, url, std::move(tls), max_answer_body, std::move(done),
                                      std::move(pool));
  x->start(std::move(body), std::move(headers));
  return x;
}

}  // namespace ringcast
