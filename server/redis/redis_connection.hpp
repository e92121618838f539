// One hiredis asynchronous connection driven by an Asio io_context: hiredis says when it wants to
// read or write, Asio waits for the socket to be ready and hands control back. Nothing blocks.
#pragma once

#include <memory>

#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "protocol/redis_url.hpp"

struct redisAsyncContext;
struct redisReply;

namespace ringcast {

class redis_connection {
 public:
  // nullptr when the connection failed before the reply came.
  using reply_handler = std::function<void(const redisReply*)>;

  // Why a connection went down, for the log and the 503s: "connection refused", "timeout (no
  // answer within 1 s)", "auth failed (WRONGPASS …)", "wrong role: a replica, …", "connection
  // lost (…)".
  using down_handler = std::function<void(const std::string& why)>;

  // `connect_timeout`: how long connecting, authenticating and checking the server may take.
  redis_connection(boost::asio::io_context& ctx, redis_url url,
                   std::chrono::milliseconds connect_timeout = std::chrono::seconds(1));
  ~redis_connection();
  redis_connection(const redis_connection&) = delete;
  redis_connection& operator=(const redis_connection&) = delete;

  // Connects, authenticates, checks that the server is a master (not a replica or a Sentinel: it
  // would refuse writes) and selects the database, then calls `on_up`; to a Sentinel (sentinel://)
  // it only pings. `on_down` is called once, with the reason, when the attempt fails or, after
  // `on_up`, when the connection is lost.
  void connect(std::function<void()> on_up, down_handler on_down);
  bool up() const { return up_; }
  // Drops the connection as if it had been lost: pending commands get nullptr, then `on_down`.
  // (A Sentinel said the master moved, or the server answered READONLY.)
  void abort();

  // Sends a command (arguments are binary safe). Fails at once (handler gets nullptr, later on the
  // io_context) when not connected.
  void command(const std::vector<std::string>& args, reply_handler done);
  // Subscribes this connection (which then takes no other commands) to a pub/sub channel:
  // `on_message` gets the subscribe confirmation and every message, then nullptr when it ends.
  void subscribe(const std::string& channel, reply_handler on_message);

 private:
  static void on_connected(const redisAsyncContext* ac, int status);
  static void on_disconnected(const redisAsyncContext* ac, int status);
  static void add_read(void* self);
  static void del_read(void* self);
  static void add_write(void* self);
  static void del_write(void* self);
  static void cleanup(void* self);
  void send(const std::vector<std::string>& args, reply_handler done, bool persistent);
  void wait_readable();
  void wait_writable();
  void lost();
  // The handshake failed (`why`): drop the connection, reporting `why` through on_down.
  void refuse(std::string why);
  // Checks ROLE's and SELECT's replies during the handshake; false after refusing.
  bool handshake_ok(const redisReply* r, std::string_view command);

  boost::asio::io_context& ctx_;
  redis_url url_;
  redisAsyncContext* ac_ = nullptr;
  boost::asio::posix::stream_descriptor socket_;
  bool want_read_ = false, want_write_ = false;
  // Handlers still pending when the connection is destroyed (a Sentinel connection dropped from
  // its own callback) find this expired and touch nothing.
  std::shared_ptr<void> alive_ = std::make_shared<char>();
  bool read_waiting_ = false, write_waiting_ = false;
  bool up_ = false;
  bool destroying_ = false;
  down_handler on_down_;
  std::string failure_;  // why it went down, when known before hiredis reports the disconnect
  std::chrono::milliseconds connect_timeout_;
  boost::asio::steady_timer deadline_;
};

}  // namespace ringcast
