// The process: its event loops, the listener, connection accounting, signals (SIGTERM drains,
// SIGHUP reloads, SIGUSR2 upgrades in place), and the node on its loops (core/node.hpp: the
// backplane, ids, seeding, fan-out across loops), to which the admin API speaks directly.
#pragma once

#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <latch>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "api/node_routes.hpp"
#include "api/pusher_api_hub.hpp"
#include "config/config.hpp"
#include "config/config_reload.hpp"
#include "core/handover_messages.hpp"
#include "core/node.hpp"
#include "core/pusher_channels.hpp"
#include "core/session_budget.hpp"
#include "hooks/pusher_webhooks.hpp"
#include "net/connection_context.hpp"
#include "net/connection_limit.hpp"
#include "net/event_loop.hpp"
#include "net/node_credentials.hpp"
#include "net/pusher_door.hpp"
#include "net/pusher_loops.hpp"
#include "net/shared_by_loops.hpp"
#include "upgrade/handover_state.hpp"
#include "upgrade/process_handover.hpp"

namespace ringcast {

class listener;

class server final : public shared_by_loops, public node_snapshots {
 public:
  server(config cfg, node_credentials credentials);
  ~server();

  // Listens, serves until SIGTERM/SIGINT, drains, and returns the process exit status.
  int run();
  // With --config: `reread(running)` reads the settings again on SIGHUP (config_reload.hpp's
  // check_reload). Before run().
  void reread_settings_with(std::function<reload_report(const config& running)> reread) {
    reread_ = std::move(reread);
  }
  // Upgrade in place on SIGUSR2 (server_upgrade.cpp): exec `own_binary` (or --upgrade-binary)
  // with `args`. Before run().
  void allow_upgrades(std::string own_binary, std::vector<std::string> args);
  // This process was exec'd by an upgrading one: go on with its state. Before run().
  void adopt(process_handover state);

  // shared_by_loops
  const route_table& routes() const override { return routes_; }
  bool draining() const override { return draining_.load(std::memory_order_relaxed); }
  std::shared_ptr<const tls_context> tls() const override;
  const token_verifier* client_tokens() const override { return credentials_.client_tokens.get(); }
  session_home home_loop(std::string_view user, std::size_t here) override {
    auto home = homes_.hold(user, here);
    return {*loops_[home.loop], std::move(home.held)};
  }
  address_limits& client_addresses() override { return addresses_; }
  pusher_channels& pusher_channels_of_node() override { return pusher_channels_; }
  pusher_door* pusher_door_of_node() override { return pusher_door_.get(); }
  bool sessions_shared() const override { return cfg_.redis.has_value(); }
  void claim_session(const std::string& user, const std::string& sid, connection_context& origin,
                     std::function<void(bool)> done) override {
    node_->claim_session(session_key(user, sid), origin.io().get_executor(), std::move(done));
  }
  // node_snapshots: the admin API's (the rest is the node's own)
  void snapshot(boost::asio::any_io_executor origin,
                std::function<void(server_snapshot)> done) override;

 private:
  event_loop& home() { return *loops_[0]; }  // where the backplane and the listener live
  std::vector<std::unique_ptr<event_loop>> make_loops();
  std::unique_ptr<node> make_node();  // server_backplane.cpp
  // POST /apps/{id}/users/{user}/terminate_connections: every Pusher connection signed in as
  // `user` ends, on every loop and node; done(how many on this node). server_pusher_api.cpp.
  void terminate_pusher_user(std::string user, boost::asio::any_io_executor origin,
                             std::function<void(std::size_t)> done);
  // With the door open, before the node starts: a terminate another node announces ends the
  // user's connections here too.
  void hear_other_nodes_pusher_terminates();
  void begin_drain();
  void watch_drain(std::chrono::steady_clock::time_point deadline);
  void watch_drain_later(std::chrono::steady_clock::time_point deadline);
  void start_hooks();            // server_hooks.cpp
  void start_connect_hook();     // server_hooks.cpp
  void start_pusher_webhooks();  // server_hooks.cpp
  // server_reload.cpp: SIGHUP reads the settings again (with --config) and the certificate.
  void reload();
  void apply_live(const config& settings);
  void reload_certificate();
  // server_upgrade.cpp
  void on_upgrade_signal();
  void upgrade();
  // One stop of every loop for an upgrade: each counts its HTTP requests in flight, then waits
  // for the verdict: serve on (the upgrade stops them again later), or capture what moves of its
  // connections and wait there for the exec.
  struct loop_stop {
    explicit loop_stop(std::size_t loops)
        : counted(static_cast<std::ptrdiff_t>(loops)),
          captured(static_cast<std::ptrdiff_t>(loops)),
          busy(loops),
          streams(loops),
          queued(loops),
          http(loops),
          reconnected(loops) {}
    std::latch counted, captured;
    std::promise<bool> verdict;  // true: capture
    std::shared_future<bool> capture = verdict.get_future().share();
    std::promise<void> go_on;  // after a failed exec
    std::shared_future<void> resumed = go_on.get_future().share();
    std::vector<std::size_t> busy;
    std::vector<std::vector<moved_stream>> streams;
    std::vector<queued_messages> queued;  // what each loop's streams name
    std::vector<std::vector<moved_http>> http;
    std::vector<std::size_t> reconnected;
  };
  std::shared_ptr<loop_stop> stop_at_rest();
  process_handover capture_for_upgrade();
  void adopt_streams();
  address_limits::slot adopted_address(net_stream& stream);
  void adopt_http();
  bool open_listener();

  config cfg_;
  config running_;  // cfg_ with the live settings of the last SIGHUP (server_reload.cpp)
  std::function<reload_report(const config&)> reread_;  // with --config
  node_credentials credentials_;                 // tls is read under tls_mutex_: SIGHUP replaces it
  hook_settings hook_settings_;                  // with --hook-url; the loops' hooks refer to it
  connect_hook_settings connect_hook_settings_;  // with --connect-hook; the loops' gates too
  std::unique_ptr<concurrency_cap> connect_hook_cap_;  // shared by the loops' gates
  system_clocks clock_;  // the node's clocks, read through the loops' timers and here
  const loop_clock::time_point started_ = clock_.now();
  const std::uint64_t floor_id_;  // ids of this run start above it: every hub's and the node's
  connection_limit connections_;
  address_limits addresses_;  // before the loops: their connections hold its slots
  session_budget sessions_;   // --max-sessions, over every loop
  home_slots homes_;          // which loop holds each user's sessions; before the loops
  presence_counts presence_;  // every loop's hub reports to it: it outlives them
  pusher_channels pusher_channels_{presence_};        // watches presence's occupancy
  std::unique_ptr<pusher_webhooks> pusher_webhooks_;  // with --pusher-webhook-url, on loop 0
  std::vector<std::unique_ptr<event_loop>> loops_;
  every_loop<event_loop> every_;  // loops_, for what runs on each (drain, stats)
  std::unique_ptr<node> node_;    // after the loops: it refers to their hubs
  // The Pusher HTTP API (api/pusher_api.hpp), when the door is open: the app, and the node's side
  // of it (the hub's counts and members, the ending of a signed-in user's connections).
  std::optional<pusher::app> pusher_app_ = pusher_app_of(cfg_);
  pusher_api_hub pusher_api_hub_{
      pusher_channels_, [this](std::string user, boost::asio::any_io_executor origin,
                               std::function<void(std::size_t)> done) {
        terminate_pusher_user(std::move(user), std::move(origin), std::move(done));
      }};
  std::optional<pusher_api_parts> pusher_api_ =
      pusher_app_ ? std::optional<pusher_api_parts>(
                        pusher_api_parts{*pusher_app_, *node_, pusher_api_hub_, *node_})
                  : std::nullopt;
  route_table routes_ =
      node_routes({*node_, *this, *node_, *node_, *node_, pusher_api_ ? &*pusher_api_ : nullptr});
  std::unique_ptr<pusher_door> pusher_door_;  // with a Pusher app; outlives the loops' connections
  pusher_loops pusher_loops_;                 // told of member events only with a Pusher app
  std::unique_ptr<listener> listener_;
  std::atomic<bool> draining_{false};
  std::unique_ptr<boost::asio::steady_timer> drain_timer_;
  std::promise<void> drained_;
  mutable std::mutex tls_mutex_;

  // Upgrade in place (server_upgrade.cpp): the binary and arguments to exec, whether one is
  // under way (a SIGUSR2 meanwhile is ignored), the thread that checks and execs, and the state
  // this process was started with, if an upgrade started it.
  struct upgrade_parts {
    std::string own_binary;
    std::vector<std::string> args;
    std::string binary;  // --upgrade-binary, live on SIGHUP: under `mutex`
    std::mutex mutex;
    std::atomic<bool> under_way{false};
    std::thread worker;
    std::optional<process_handover> adopted;
    std::uint64_t count = 0;        // upgrades this process has been through
    std::uint64_t reconnected = 0;  // native-TLS connections they told to reconnect
    bool node_restored = false;     // the sessions, history and schedule came with it
    handover_messages restored;     // the node's messages, until the streams are adopted
  } upgrade_;
};

}  // namespace ringcast
