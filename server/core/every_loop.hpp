// "A service on every loop" (after Seastar's sharded<T>): the node's event loops as one set, each
// with its own thread. invoke_on_all posts a call to every loop; map_reduce runs a map on each
// loop's thread and hands the results, by loop, to a caller's executor. `Loop` is anything with
// io() (the loop's io_context): the node's view of a loop (node_loop) or the process's event_loop.
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <numeric>
#include <utility>
#include <vector>

#include "core/hub.hpp"
#include "core/loop_timers.hpp"

namespace ringcast {

// One event loop as the node sees it: where its work runs, its hub and its timers (its clock).
struct node_loop {
  boost::asio::io_context* io_context;
  hub* sessions_of_loop;
  loop_timers* timers_of_loop;

  boost::asio::io_context& io() const { return *io_context; }
  hub& sessions() const { return *sessions_of_loop; }
  loop_timers& timers() const { return *timers_of_loop; }
  timing_wheel::time_point now() const { return timers_of_loop->now(); }
};

template <class Loop>
class every_loop {
 public:
  explicit every_loop(std::vector<Loop*> loops) : loops_(std::move(loops)) {}

  std::size_t size() const { return loops_.size(); }
  Loop& operator[](std::size_t i) const { return *loops_[i]; }
  // Loop 0: where the backplane, the schedule and the listener live.
  Loop& home() const { return *loops_[0]; }

  // Posts `f(loop)` to every loop (a copy of `f` each), in loop order.
  template <class F>
  void invoke_on_all(const F& f) const {
    for (Loop* l : loops_)
      boost::asio::post(l->io(), [f, l] { f(*l); });
  }

  // Runs `map(loop)` on each loop's thread, then `done(results)` (indexed by loop) on `origin`.
  // Everything of the caller's is destroyed on `origin`: whichever loop finishes last must not
  // be the one to destroy the caller's objects (a connection, say).
  template <class T, class Map>
  void map_reduce(Map map, boost::asio::any_io_executor origin,
                  std::function<void(std::vector<T>)> done) const {
    struct gathering {
      gathering(Map m, std::size_t loops, std::function<void(std::vector<T>)> d,
                boost::asio::any_io_executor o)
          : map(std::move(m)),
            results(loops),
            remaining(loops),
            done(std::move(d)),
            origin(std::move(o)) {}
      Map map;
      std::mutex mutex;
      std::vector<T> results;
      std::size_t remaining;
      std::function<void(std::vector<T>)> done;
      boost::asio::any_io_executor origin;
    };
    auto g = std::make_shared<gathering>(std::move(map), loops_.size(), std::move(done),
                                         std::move(origin));
    for (std::size_t i = 0; i < loops_.size(); ++i) {
      boost::asio::post(loops_[i]->io(), [g, i, l = loops_[i]] {
        T value = g->map(*l);
        std::lock_guard lock(g->mutex);
        g->results[i] = std::move(value);
        if (--g->remaining == 0) {
          boost::asio::post(g->origin,
                            [done = std::move(g->done), results = std::move(g->results)]() mutable {
                              done(std::move(results));
                            });
        }
      });
    }
  }

 private:
  std::vector<Loop*> loops_;
};

// Turns a done(total) into the done(count per loop) that map_reduce calls.
inline std::function<void(std::vector<std::size_t>)> summed(std::function<void(std::size_t)> done) {
  return [done = std::move(done)](std::vector<std::size_t> counts) {
    done(std::accumulate(counts.begin(), counts.end(), std::size_t{0}));
  };
}

}  // namespace ringcast
