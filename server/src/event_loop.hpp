// One thread, one io_context, one hub (sessions + timing wheel): shared-nothing per core.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <thread>
#include <unordered_set>

#include "hub.hpp"

namespace ringcast {

class server;

// A connection waiting for its next HTTP request: closed at once when the server drains.
class idle_connection {
 public:
  virtual void close_now() = 0;

 protected:
  ~idle_connection() = default;
};

class event_loop {
 public:
  using time_point = hub::time_point;

  event_loop(server& owner, unsigned index, time_point epoch, std::uint64_t floor_id);
  event_loop(const event_loop&) = delete;
  event_loop& operator=(const event_loop&) = delete;

  boost::asio::io_context& context() { return ctx_; }
  hub& sessions() { return hub_; }
  server& owner() { return owner_; }
  unsigned index() const { return index_; }

  void add_idle(idle_connection& c) { idle_.insert(&c); }
  void remove_idle(idle_connection& c) { idle_.erase(&c); }
  void close_idle_connections();

  // Runs the timers that are due by now (the picture of the wheel shows the current tick).
  void catch_up() { on_wake(); }

  void start();  // runs the io_context on a thread of its own
  void stop() { ctx_.stop(); }
  void join();

 private:
  void wake_at(time_point when);
  void on_wake();

  server& owner_;
  unsigned index_;
  // Declared before the io_context, so they outlive it: destroying the io_context destroys the
  // handlers still pending, and with them connections that detach from the hub and leave idle_.
  hub hub_;
  std::unordered_set<idle_connection*> idle_;
  // No concurrency hint of 1: with it Asio queues a post from the loop's own thread apart from
  // posts of other threads, and publishes numbered in order could reach the loop out of order.
  boost::asio::io_context ctx_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  boost::asio::steady_timer timer_;  // the loop's one timer, armed for the wheel's next due tick
  std::thread thread_;
};

}  // namespace ringcast
