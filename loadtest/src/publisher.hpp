#pragma once

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <map>
#include <memory>
#include <vector>

#include "connector.hpp"
#include "flags.hpp"

namespace ringcast::load {

// Broadcasts {"data":{"t":<realtime us>,"seq":n}} through POST /admin/publish on one keep-alive
// connection, one request in flight, at --publish-rate. When the server is slower than the rate
// it sends back to back rather than piling requests up; the report shows how far it fell short.
// With --spread, each publish also carries "spread" (docs/protocol.md, "Paced publish").
// With --channel, each publish addresses that channel. With --server-kind nchan: POST
// /pub/<channel> with the bare {"t":..,"seq":n}, booked as id n+1; with --server-kind pusher the
// admin publish to the channel, booked the same way (Pusher's frames carry no id).
class publisher {
 public:
  publisher(boost::asio::io_context& io, const options& opts);

  void start();
  void stop();

  // The ids the server assigned, ascending (ids are strictly increasing and requests are
  // sequential, so arrival order is id order).
  const std::vector<std::uint64_t>& ids() const { return ids_; }
  std::uint64_t sent() const { return seq_; }
  const std::map<std::string, std::uint64_t>& errors() const { return errors_; }

 private:
  void tick();
  void send();
  void fail(const std::string& kind);

  const options& opts_;
  boost::asio::io_context& io_;
  connector net_;
  std::unique_ptr<net_stream> stream_;  // null between connections
  deadline reply_deadline_;             // per request: connect, then write and read
  boost::beast::flat_buffer buffer_;
  boost::beast::http::request<boost::beast::http::string_body> req_;
  boost::beast::http::response<boost::beast::http::string_body> res_;
  boost::asio::steady_timer timer_;
  std::chrono::steady_clock::time_point start_;
  std::uint64_t seq_ = 0;
  bool busy_ = false;
  bool stopped_ = false;
  std::vector<std::uint64_t> ids_;
  std::map<std::string, std::uint64_t> errors_;
};

}  // namespace ringcast::load
