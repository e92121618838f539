// What all event loops share: the configuration, the id sequencer, connection accounting, and
// the operations that span every loop (publish, kick, stats, drain).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string_view>
#include <vector>

#include "admin_request.hpp"
#include "config.hpp"
#include "event_loop.hpp"
#include "redis/redis_bus.hpp"

namespace ringcast {

class listener;

// A snapshot of one loop, taken on that loop's thread.
struct loop_snapshot {
  loop_stats stats;
  std::size_t sessions = 0;
  std::size_t connected = 0;
  std::uint64_t tick = 0;
  std::size_t armed = 0;
  timing_wheel::counters wheel;
  std::vector<std::uint32_t> level0, level1;
};

struct server_snapshot {
  std::vector<loop_snapshot> loops;
  bool clustered = false;  // --redis
  bool redis_up = false;
  std::uint64_t redis_reconnects = 0;
  std::uint64_t published = 0;
  std::uint64_t last_id = 0;
  std::size_t open_connections = 0;
  std::chrono::milliseconds uptime{0};
};

class server {
 public:
  explicit server(config cfg);
  ~server();

  // Listens, serves until SIGTERM/SIGINT, drains, and returns the process exit status.
  int run();

  const config& settings() const { return cfg_; }
  // What new connections speak: TLS settings, or null for plaintext. SIGHUP reads --tls-cert and
  // --tls-key again; connections already open keep the settings they started with.
  std::shared_ptr<const tls_context> tls() const;
  event_loop& home_loop(std::string_view user, std::string_view sid);
  std::vector<std::unique_ptr<event_loop>>& loops() { return loops_; }
  bool draining() const { return draining_.load(std::memory_order_relaxed); }

  // Open TCP connections, for --max-connections. A slot is held by whichever object owns the
  // socket, from accept to close.
  class connection_slot {
   public:
    connection_slot() = default;
    explicit connection_slot(server* s) : server_(s) {}
    connection_slot(connection_slot&& o) noexcept : server_(std::exchange(o.server_, nullptr)) {}
    connection_slot& operator=(connection_slot&& o) noexcept {
      std::swap(server_, o.server_);
      return *this;
    }
    ~connection_slot() {
      if (server_) server_->open_connections_.fetch_sub(1, std::memory_order_relaxed);
    }

   private:
    server* server_ = nullptr;
  };
  // A slot, or none when --max-connections is reached.
  std::optional<connection_slot> try_open_connection();

  struct publish_receipt {
    std::uint64_t id;
    std::size_t recipients;  // live sessions it was queued to (with --redis: on this node)
  };
  // Numbers the message and delivers it on every loop in id order (with --redis: through the
  // shared stream, on every node). `done` runs on `origin`; nullopt means Redis is unreachable
  // and nothing was published.
  void publish(const publish_request& req, boost::asio::any_io_executor origin,
               std::function<void(std::optional<publish_receipt>)> done);
  void kick(std::string user, boost::asio::any_io_executor origin,
            std::function<void(std::size_t)> done);
  void snapshot(boost::asio::any_io_executor origin, std::function<void(server_snapshot)> done);

  // Multi-node (--redis) only.
  bool clustered() const { return !cfg_.redis.empty(); }
  bool redis_up() const { return bus_ && bus_->up(); }
  // Takes session (user, sid) over for this node; `done(known)` on `origin`: another node (or
  // this one earlier) held it.
  void claim_session(const std::string& user, const std::string& sid,
                     boost::asio::any_io_executor origin, std::function<void(bool)> done);

  // Runs `collect(loop)` on every loop's thread, then `done(results)` on `origin`.
  template <class T>
  void for_each_loop(std::function<T(event_loop&)> collect, boost::asio::any_io_executor origin,
                     std::function<void(std::vector<T>)> done);

 private:
  void start_redis();
  void deliver_everywhere(message_ptr m, boost::asio::any_io_executor origin,
                          std::function<void(std::size_t)> done);
  event_loop& bus_loop() { return *loops_[0]; }
  void begin_drain();
  void watch_drain(std::chrono::steady_clock::time_point deadline);
  void post_to_all_loops_in_order(const std::function<void(event_loop&)>& task);
  void reload_tls();

  config cfg_;
  const std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
  std::vector<std::unique_ptr<event_loop>> loops_;
  std::unique_ptr<listener> listener_;
  std::unique_ptr<redis_bus> bus_;  // on loop 0, with --redis
  std::atomic<std::size_t> open_connections_{0};
  std::atomic<bool> draining_{false};
  std::unique_ptr<boost::asio::steady_timer> drain_timer_;
  std::promise<void> drained_;

  mutable std::mutex tls_mutex_;
  std::shared_ptr<const tls_context> tls_;  // cfg_.tls, until a SIGHUP replaces it

  std::mutex sequencer_;  // ids are assigned and posted to every loop under it: order is id order
  std::uint64_t last_id_;
  std::uint64_t published_ = 0;
};

template <class T>
void server::for_each_loop(std::function<T(event_loop&)> collect,
                           boost::asio::any_io_executor origin,
                           std::function<void(std::vector<T>)> done) {
  struct gathering {
    std::mutex mutex;
    std::vector<T> results;
    std::size_t remaining;
    std::function<void(std::vector<T>)> done;
    boost::asio::any_io_executor origin;
  };
  auto g = std::make_shared<gathering>();
  g->results.resize(loops_.size());
  g->remaining = loops_.size();
  g->done = std::move(done);
  g->origin = std::move(origin);
  for (auto& loop : loops_) {
    boost::asio::post(loop->context(), [g, collect, l = loop.get()] {
      T value = collect(*l);
      std::lock_guard lock(g->mutex);
      g->results[l->index()] = std::move(value);
      if (--g->remaining == 0) {
        // Everything of the caller's moves to its own thread: whichever loop drops `g` last
        // must not be the one to destroy the caller's objects (a connection, say).
        boost::asio::post(g->origin,
                          [done = std::move(g->done), results = std::move(g->results)]() mutable {
                            done(std::move(results));
                          });
      }
    });
  }
}

}  // namespace ringcast
