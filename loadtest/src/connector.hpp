// How the tool opens every connection (ws, sse and poll clients, the publisher, admin requests):
// bind a loopback source address, connect, and with --tls do the TLS handshake, all within one
// deadline. The stream is a ringcast::net_stream (server/tls/net_stream.hpp), plain or TLS, so
// the clients and Beast over them do not care which.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/address_v4.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string_view>

#include "flags.hpp"
#include "tls/net_stream.hpp"
#include "tls/tls_context.hpp"

namespace ringcast::load {

// beast::tcp_stream's expires_after for a net_stream: when the time is up before cancel() (or the
// next arm()), the stream is closed, which fails the operation under way on it; expired() then
// tells that failure from the others. The stream must outlive the deadline or its cancel().
class deadline {
 public:
  explicit deadline(const boost::asio::any_io_executor& ex);
  ~deadline();
  deadline(const deadline&) = delete;
  deadline& operator=(const deadline&) = delete;

  void arm(net_stream& stream, std::chrono::steady_clock::duration after);
  void cancel();
  bool expired() const { return state_->expired; }

 private:
  struct state {
    explicit state(const boost::asio::any_io_executor& ex) : timer(ex) {}
    boost::asio::steady_timer timer;
    net_stream* stream = nullptr;  // null when disarmed: a timer already queued does nothing
    std::uint64_t generation = 0;
    bool expired = false;
  };
  std::shared_ptr<state> state_;
};

// Error kinds a failed connect() reports (the report's "errors" counts them).
inline constexpr std::string_view bind_failed = "bind";
inline constexpr std::string_view connect_failed = "connect";
inline constexpr std::string_view tls_handshake_failed = "tls_handshake";

class connector {
 public:
  // With --tls, loads the TLS client settings (and --tls-ca); throws std::runtime_error when the
  // CA file cannot be used (parse_flags has checked it already).
  explicit connector(const options& opts);

  bool tls() const { return tls_.has_value(); }

  // Empty: the stream is connected (TLS is up with --tls) and ready for HTTP. Otherwise the
  // error kind: bind_failed, connect_failed or tls_handshake_failed (running out of time counts
  // as a failure of the step under way).
  using handler = std::function<void(std::string_view failure)>;

  // Makes `stream`, a net_stream on a socket that is not open yet, a connection to `server` from
  // `source` (none: the kernel's choice). `stream` must live until `done` is called (have `done`
  // hold its owner); closing it meanwhile (net_stream::close) makes the step under way fail. `done`
  // is called once, never from inside connect().
  void connect(net_stream& stream, const boost::asio::ip::tcp::endpoint& server,
               const std::optional<boost::asio::ip::address_v4>& source,
               std::chrono::steady_clock::duration timeout, handler done) const;

 private:
  std::optional<tls_context> tls_;
};

}  // namespace ringcast::load
