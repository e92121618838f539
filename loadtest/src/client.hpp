#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <random>
#include <string>
#include <string_view>

#include "client_state.hpp"
#include "connector.hpp"
#include "flags.hpp"
#include "result.hpp"

namespace ringcast::load {

// What the clients of one worker share: the loop, the flags and the tallies they book into.
struct worker_context {
  boost::asio::io_context& io;
  const options& opts;
  connector net;  // every client connects through it (plain or TLS)
  client_result result;
  progress live;
  // A connection up before this moment was up before the first publish (nchan accounting).
  std::chrono::steady_clock::time_point publishing_from{};

  void count_error(const std::string& kind) { ++result.errors[kind], ++live.errors; }
};

// The TCP connect and, with --tls, the TLS handshake must be done within this (beast's tcp_stream
// timeout the clients used before they could speak TLS).
inline constexpr std::chrono::seconds connect_timeout{10};

struct client_identity {
  std::size_t index = 0;  // global over all workers: user load-<index>, sid s<index>
  transport kind = transport::ws;
  bool idle = false;  // ws only: never sends a frame
  boost::asio::ip::address_v4 source;
  boost::asio::ip::tcp::endpoint server;
};

// One simulated user tab. The base class owns the life cycle shared by every transport (first
// connect, churn, reconnect with `since` after a server's `reconnect`/`close` or an error, stop);
// a subclass owns the connection. A subclass keeps each connection in its own object held by
// shared_ptr in the handlers, so dropping a connection only marks it abandoned.
class client {
 public:
  client(worker_context& ctx, client_identity id);
  virtual ~client() = default;
  client(const client&) = delete;
  client& operator=(const client&) = delete;

  void start();
  void churn();  // drop the connection now and reconnect at once, resuming with since
  void stop();   // end of run: drop and never come back

  bool connected() const { return connected_; }
  // Adds what the connection open now has received on the wire (ws only) to `into`: the final
  // count is taken before the clients stop.
  virtual void add_wire(client_result& into) const { (void)into; }
  const client_state& state() const { return state_; }
  const client_identity& identity() const { return id_; }

 protected:
  virtual void open() = 0;  // begin a new connection, resuming from state().since()
  virtual void drop() = 0;  // abandon the current connection; its handlers become no-ops

  // "/ws?user=load-7&sid=s7&since=42" (since only once something was seen; channels=NAME with
  // --channel).
  std::string path(std::string_view endpoint) const;
  void connection_started();
  void established();
  // ws: the server's 101 was read (before any frame after it).
  void upgraded();
  // `arrived_us`: when the message reached the client (Unix µs): read now, unless a ws client's
  // stream gave the kernel's receive time (--arrival kernel).
  reaction envelope(std::string_view text, std::int64_t arrived_us);
  // --server-kind nchan or pusher: the subscription is up (no hello comes), then raw published
  // bodies (pusher: each event's data string).
  void nchan_connected();
  void raw_message(std::string_view text, std::int64_t arrived_us);
  void react(const reaction& r);
  // The connection is gone without an envelope saying why: count it and come back later.
  void failed(const std::string& kind);
  void reconnect_after(std::chrono::milliseconds delay);
  bool stopped() const { return stopped_; }

  worker_context& ctx_;
  const client_identity id_;

 private:
  void lost_connection();

  client_state state_;
  boost::asio::steady_timer retry_timer_;
  std::minstd_rand jitter_;
  std::chrono::steady_clock::time_point connect_started_;
  bool connected_ = false;
  bool ever_connected_ = false;
  bool stopped_ = false;
};

}  // namespace ringcast::load
