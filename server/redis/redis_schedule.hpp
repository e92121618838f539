// The cluster's scheduled publishes, kept in Redis (with --redis; docs/scaling.md, "Scheduled
// publishes"), so that a promotion survives the node that accepted it and is published once:
//
//   {ringcast}:scheduled              sorted set: schedule id -> at (Unix ms)
//   {ringcast}:scheduled:item:<id>    hash: the request as posted (for the listing) and the fields
//                                     of the stream entry it becomes (audience, data, ttl, spread)
//   {ringcast}:scheduled:last_id      the counter schedule ids are made from
//
// Adding checks --max-scheduled against the cluster's count in the same script. Claiming is one
// script that takes what is due by Redis's clock off the set *and* appends it to the message
// stream (redis_stream.hpp), so a promotion is published exactly once whichever nodes ask, and a
// node that dies between the two cannot lose or repeat one. Every node then delivers it from the
// stream as any publish. All of it runs on the bus's io_context.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ringcast {

class redis_bus;

class redis_schedule {
 public:
  // `limit`: --max-scheduled; `history`: the stream's MAXLEN, as the bus appends with.
  redis_schedule(redis_bus& bus, std::size_t limit, std::size_t history);

  enum class added { ok, too_many, unavailable };
  // `request_json`: a valid publish request (it was accepted), kept as the listing shows it.
  void add(const std::string& request_json, std::int64_t at_ms,
           std::function<void(added, std::string id)> done);

  struct waiting {
    std::string id;
    std::int64_t at_ms;
    std::string request_json;
  };
  // Earliest `at` first; nullopt: Redis is unreachable.
  void list(std::function<void(std::optional<std::vector<waiting>>)> done);
  // nullopt: unreachable; false: no such id waits (published, cancelled or unknown).
  void cancel(const std::string& id, std::function<void(std::optional<bool>)> done);

  struct claimed {
    std::size_t taken = 0;    // promotions this claim took off and appended to the stream
    bool more = false;        // the batch was full
    std::size_t waiting = 0;  // what is left in the cluster's schedule
    std::optional<std::chrono::milliseconds> next_due;  // until the earliest left, Redis's clock
  };
  // Publishes what is due; nullopt: unreachable.
  void claim(std::function<void(std::optional<claimed>)> done);

 private:
  redis_bus& bus_;
  std::size_t limit_;
  std::size_t history_;
};

}  // namespace ringcast
