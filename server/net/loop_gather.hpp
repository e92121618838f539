// A gather over every event loop: runs `collect(loop)` on each loop's thread, then
// `done(results)` (indexed by loop) on `origin`.
#pragma once

#include <boost/asio/post.hpp>

#include <functional>
#include <memory>
#include <mutex>
#include <numeric>
#include <vector>

#include "event_loop.hpp"

namespace ringcast {

template <class T>
void for_each_loop(const std::vector<std::unique_ptr<event_loop>>& loops,
                   std::function<T(event_loop&)> collect, boost::asio::any_io_executor origin,
                   std::function<void(std::vector<T>)> done) {
  struct gathering {
    std::mutex mutex;
    std::vector<T> results;
    std::size_t remaining;
    std::function<void(std::vector<T>)> done;
    boost::asio::any_io_executor origin;
  };
  auto g = std::make_shared<gathering>();
  g->results.resize(loops.size());
  g->remaining = loops.size();
  g->done = std::move(done);
  g->origin = std::move(origin);
  for (auto& loop : loops) {
    boost::asio::post(loop->io(), [g, collect, l = loop.get()] {
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

// Turns a done(total) into the done(count per loop) that for_each_loop calls.
inline std::function<void(std::vector<std::size_t>)> summed(std::function<void(std::size_t)> done) {
  return [done = std::move(done)](std::vector<std::size_t> counts) {
    done(std::accumulate(counts.begin(), counts.end(), std::size_t{0}));
  };
}

}  // namespace ringcast
