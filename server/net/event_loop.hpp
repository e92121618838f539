// One thread, one io_context, one hub (sessions + timing wheel): shared-nothing per core. The
// loop is its connections' context; what the loops share comes from the node.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <thread>

#include "core/handover_messages.hpp"
#include "hooks/connect_gate.hpp"
#include "hooks/loop_hooks.hpp"
#include "net/connection_context.hpp"
#include "net/shared_by_loops.hpp"

namespace ringcast {

class event_loop final : public connection_context {
 public:
  // `clock`: the node's (it outlives the loop); `epoch`: tick 0 of every loop's wheel.
  event_loop(shared_by_loops& shared, const config& cfg, unsigned index, const loop_clock& clock,
             time_point epoch, std::uint64_t floor_id);
  ~event_loop();
  event_loop(const event_loop&) = delete;
  event_loop& operator=(const event_loop&) = delete;

  // connection_context
  boost::asio::io_context& io() override { return ctx_; }
  hub& sessions() override { return hub_; }
  loop_timers& timers() override { return timers_; }
  time_point now() const override { return timers_.now(); }
  loop_stats& stats() override { return stats_; }
  const connection_settings& settings() const override { return settings_; }
  bool draining() const override { return node_.draining(); }
  std::shared_ptr<const tls_context> tls() const override { return node_.tls(); }
  const token_verifier* client_tokens() const override { return node_.client_tokens(); }
  session_home home_of(std::string_view user) override { return node_.home_loop(user, index_); }
  bool sessions_shared() const override { return node_.sessions_shared(); }
  void claim_session(const std::string& user, const std::string& sid,
                     std::function<void(bool)> done) override {
    node_.claim_session(user, sid, *this, std::move(done));
  }
  const route_table& routes() const override { return node_.routes(); }
  connect_gate* connect_hook() override { return gate_.get(); }
  address_limits& client_addresses() override { return node_.client_addresses(); }
  connection_registry& connections() override { return connections_; }
  pusher_door* pusher() override { return node_.pusher_door_of_node(); }

  unsigned index() const { return index_; }
  // The live settings of a SIGHUP (config_reload.hpp), for connections from now on: call on the
  // loop's thread.
  void apply_live(const config& settings) { settings_ = connection_settings::from(settings); }
  // Every HTTP connection waiting for a request is told of the drain (http_connection::on_drain).
  void drain_idle_connections();
  // An upgrade in place, on the loop's thread (docs/operations.md, "Upgrading"): from
  // begin_handover the plain HTTP connections park at rest (http_connection::begin_handover);
  // requests_in_flight() counts what the upgrade waits for (requests being read, handled or
  // answered, polls' replies being written); end_handover sets the parked ones reading again.
  void begin_handover();
  std::size_t requests_in_flight();
  void end_handover();
  // On the loop's thread, stopped for an upgrade: the HTTP connections between requests and the
  // held long-polls that move (poll_connection::capture_loop). Returns how many held polls over
  // native TLS were told to reconnect instead.
  std::size_t capture_http(std::vector<moved_http>& out);
  // The same of its streams (stream_connection::capture_loop): their queued messages go by
  // reference into `messages`.
  std::size_t capture_streams(std::vector<moved_stream>& out, queued_messages& messages);
  // Runs the timers that are due by now (the picture of the wheel shows the current tick).
  void catch_up() { on_wake(); }

  // With --hook-url: this loop's session events go to the backend (before start()).
  void start_hooks(const hook_settings& settings);
  loop_hooks* hooks() { return hooks_.get(); }
  // With --connect-hook (before start()).
  void start_connect_hook(const connect_hook_settings& settings);

  void start();  // runs the io_context on a thread of its own
  void stop() { ctx_.stop(); }
  void join();

 private:
  void wake_at(time_point when);
  void on_wake();

  shared_by_loops& node_;
  unsigned index_;
  connection_settings settings_;
  // Declared before the io_context, so they outlive it: destroying the io_context destroys the
  // handlers still pending, and with them connections that detach from the hub and leave the
  // registry.
  loop_stats stats_;
  loop_timers timers_;
  hub hub_;
  connection_registry connections_;
  // No concurrency hint of 1: with it Asio queues a post from the loop's own thread apart from
  // posts of other threads, and publishes numbered in order could reach the loop out of order.
  boost::asio::io_context ctx_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  boost::asio::steady_timer timer_;  // the loop's one timer, armed for the wheel's next due tick
  // After the io_context: it goes first, while the io_context and the hub still exist.
  std::unique_ptr<loop_hooks> hooks_;
  std::unique_ptr<connect_gate> gate_;
  std::thread thread_;
};

}  // namespace ringcast
