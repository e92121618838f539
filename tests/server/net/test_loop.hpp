// A connection_context for tests: one io_context on a thread of its own, a hub and timers on a
// simulated clock (steady and wall together) that moves only when a test says so, and a listener on
// 127.0.0.1 whose connections are served by the real http_connection. Tests talk to it with
// blocking loopback sockets.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>

#include <atomic>
#include <functional>
#include <future>
#include <memory>
#include <thread>

#include "api/admin_api.hpp"
#include "api/node_routes.hpp"
#include "net/connection_context.hpp"
#include "net/connection_limit.hpp"

namespace ringcast::test {

// /healthz and /metrics of a healthy node with nothing to count: the only operations the
// connection tests ask for.
class healthy_node final : public node_health, public node_snapshots {
 public:
  std::string why_unhealthy() const override { return {}; }
  std::string redis_problem() const override { return {}; }
  void snapshot(boost::asio::any_io_executor, std::function<void(server_snapshot)> done) override {
    done({});
  }
};

// The routes the connection tests use: the client endpoints, the operations, the pages.
inline route_table test_routes(healthy_node& node) {
  route_table routes;
  add_client_routes(routes);
  add_operations_routes(routes, node, node);
  add_page_routes(routes);
  return routes;
}

class test_loop final : public connection_context {
 public:
  explicit test_loop(const config& cfg);
  ~test_loop();

  // connection_context
  boost::asio::io_context& io() override { return io_; }
  hub& sessions() override { return hub_; }
  loop_timers& timers() override { return timers_; }
  time_point now() const override { return clock_.now(); }
  loop_stats& stats() override { return stats_; }
  const connection_settings& settings() const override { return settings_; }
  bool draining() const override { return draining_; }
  std::shared_ptr<const tls_context> tls() const override { return nullptr; }
  const token_verifier* client_tokens() const override { return tokens_.get(); }
  session_home home_of(std::string_view user) override { return {home_ ? home_(user) : *this, {}}; }
  bool sessions_shared() const override { return true; }  // claims as a --redis node's loop
  void claim_session(const std::string&, const std::string&,
                     std::function<void(bool)> done) override {
    ++claims;
    done(false);
  }
  const route_table& routes() const override { return routes_; }
  connect_gate* connect_hook() override { return nullptr; }
  address_limits& client_addresses() override { return addresses_; }
  connection_registry& connections() override { return connections_; }
  pusher_door* pusher() override { return pusher_; }

  // Runs `f` on the loop's thread and returns its result.
  template <class F>
  auto run(F&& f) {
    std::packaged_task<decltype(f())()> task(std::forward<F>(f));
    auto result = task.get_future();
    boost::asio::post(io_, [&task] { task(); });
    return result.get();
  }
  // Moves the simulated clock forward and runs every timer that is due (on the loop's thread).
  void advance(std::chrono::milliseconds d);

  std::uint16_t port() const { return port_; }
  // Connections accepted and not yet closed.
  std::size_t open_connections() const { return limit_.open(); }
  // Connections waiting for a request, parked or not (on the loop's thread only: use run()).
  std::size_t idle_connections() const {
    return connections_.count(connection_kind::http, connection_state::idle) +
           connections_.count(connection_kind::http, connection_state::parked);
  }
  // A blocking client socket connected to the listener, with a 5 s receive timeout.
  boost::asio::ip::tcp::socket connect();

  void set_tokens(std::shared_ptr<const token_verifier> t) { tokens_ = std::move(t); }
  void set_home(std::function<connection_context&(std::string_view)> h) { home_ = std::move(h); }
  // Opens the Pusher door (/app/KEY) onto `door`, which outlives the loop's connections.
  void set_pusher(pusher_door* door) { pusher_ = door; }
  void set_draining(bool d) { draining_ = d; }
  // As the server drains: draining() from now on, and every waiting connection told (on the loop).
  void drain_idle_connections();
  connection_settings& mutable_settings() { return settings_; }
  // Accepted sockets get this SO_SNDBUF (0: the system's), so a client that does not read
  // leaves the server with unwritten bytes soon.
  void set_send_buffer(int bytes) { send_buffer_ = bytes; }
  // A client socket whose receive buffer is as small as the system allows (see set_send_buffer).
  boost::asio::ip::tcp::socket connect_small();

  std::atomic<int> claims{0};

 private:
  void accept();

  config cfg_;
  connection_settings settings_;
  simulated_clock clock_;
  loop_stats stats_;
  loop_timers timers_;
  hub hub_;
  healthy_node node_;
  route_table routes_ = test_routes(node_);
  address_limits addresses_;
  std::shared_ptr<const token_verifier> tokens_;
  std::function<connection_context&(std::string_view)> home_;
  std::atomic<bool> draining_{false};
  pusher_door* pusher_ = nullptr;
  connection_registry connections_;
  connection_limit limit_{1000};
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::io_context client_io_;  // the tests' blocking sockets live here
  std::uint16_t port_ = 0;
  std::atomic<int> send_buffer_{0};
  std::thread thread_;
};

}  // namespace ringcast::test
