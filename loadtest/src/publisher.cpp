#include "publisher.hpp"

#include <fmt/format.h>

#include <boost/beast/http.hpp>
#include <boost/json.hpp>

#include "client_state.hpp"

namespace ringcast::load {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using error_code = boost::system::error_code;

// Connecting (with its TLS handshake), and each request from its write to its reply.
constexpr std::chrono::seconds request_timeout{5};

publisher::publisher(asio::io_context& io, const options& opts)
    : opts_(opts), io_(io), net_(opts), reply_deadline_(io.get_executor()), timer_(io) {}

void publisher::start() {
  if (opts_.publish_rate <= 0) return;
  start_ = std::chrono::steady_clock::now();
  tick();
}

void publisher::stop() {
  stopped_ = true;
  timer_.cancel();
}

void publisher::tick() {
  if (stopped_) return;
  // Message n is due at start + n / rate: a late reply delays it, it does not shift the rest.
  const auto due = start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                std::chrono::duration<double>(seq_ / opts_.publish_rate));
  if (std::chrono::steady_clock::now() >= due && !busy_) return send();
  timer_.expires_at(due);
  timer_.async_wait([this](error_code ec) {
    if (!ec) tick();
  });
}

void publisher::fail(const std::string& kind) {
  ++errors_[kind];
  reply_deadline_.cancel();
  stream_.reset();  // reconnect for the next message
  busy_ = false;
  tick();
}

void publisher::send() {
  busy_ = true;
  const auto& t = opts_.targets.front();
  const bool nchan = opts_.kind == server_kind::nchan;
  // Pusher frames carry no id: the clients book message seq under id seq + 1, as with nchan.
  const bool booked_by_seq = opts_.kind != server_kind::ringcast;
  const auto& extra = opts_.payload_members;
  const auto stamp = fmt::format(R"({{"t":{},"seq":{}{}{}}})", realtime_us(), seq_,
                                 extra.empty() ? "" : ",", extra);
  req_ = {http::verb::post, nchan ? "/pub/" + opts_.channel : "/admin/publish", 11};
  req_.set(http::field::host, t.text());
  if (!nchan) req_.set(http::field::authorization, "Bearer " + opts_.admin_token);
  req_.set(http::field::content_type, "application/json");
  req_.keep_alive(true);
  // Nchan relays the body as is; ringcast wraps the "data" in its envelope.
  if (nchan) {
    req_.body() = stamp;
  } else {
    req_.body() = fmt::format(R"({{"data":{})", stamp);
    if (!opts_.channel.empty()) req_.body() += fmt::format(R"(,"channel":"{}")", opts_.channel);
    if (opts_.spread.count() > 0)
      req_.body() += fmt::format(R"(,"spread":"{}ms")", opts_.spread.count());
    req_.body() += "}";
  }
  req_.prepare_payload();
  ++seq_;
  const auto write = [this, nchan, booked_by_seq] {
    reply_deadline_.arm(*stream_, request_timeout);
    http::async_write(*stream_, req_, [this, nchan, booked_by_seq](error_code ec, std::size_t) {
      if (ec) return fail("publish_write");
      res_ = {};
      http::async_read(
          *stream_, buffer_, res_, [this, nchan, booked_by_seq](error_code rec, std::size_t) {
            if (rec) return fail("publish_read");
            if (nchan) {
              // 201 Created (first message of the channel) or 202 Accepted; the reply is channel
              // info, not an id.
              if (res_.result_int() < 200 || res_.result_int() > 299)
                return fail(fmt::format("publish_http_{}", res_.result_int()));
            } else if (res_.result_int() != 200) {
              return fail(fmt::format("publish_http_{}", res_.result_int()));
            }
            if (booked_by_seq) {
              ids_.push_back(seq_);  // seq_ was incremented: the id of the message just sent
            } else {
              error_code jec;
              const auto reply = boost::json::parse(res_.body(), jec);
              const auto* id =
                  !jec && reply.is_object() ? reply.as_object().if_contains("id") : nullptr;
              if (!id || !id->is_number()) return fail("publish_bad_reply");
              ids_.push_back(id->to_number<std::uint64_t>());
            }
            reply_deadline_.cancel();
            if (!res_.keep_alive()) stream_.reset();
            busy_ = false;
            tick();
          });
    });
  };
  if (stream_) return write();
  stream_ = std::make_unique<net_stream>(net_stream::socket_type(io_));
  net_.connect(
      *stream_, {asio::ip::make_address_v4(t.host), t.port}, std::nullopt, request_timeout,
      [this, write](std::string_view failure) {
        if (failure.empty()) return write();
        fail(failure == tls_handshake_failed ? "publish_tls_handshake" : "publish_connect");
      });
}

}  // namespace ringcast::load
