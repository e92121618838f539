// The node's promotions that span loops: the schedule of waiting publishes (kept on loop 0's
// wheel) and the reach of a message in history. `server` forwards the node_operations calls here.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "node_operations.hpp"
#include "schedule.hpp"

namespace ringcast {

class event_loop;

class promotions {
 public:
  // `publish` publishes a due request at once, as POST /admin/publish without "at"/"delay" does.
  promotions(event_loop& home, std::size_t limit,
             std::function<void(const publish_request&)> publish);
  ~promotions();

  void add(std::string request_json, std::int64_t at_ms, boost::asio::any_io_executor origin,
           std::function<void(std::optional<std::string>)> done);
  void list(boost::asio::any_io_executor origin,
            std::function<void(std::vector<node_operations::scheduled_promotion>)> done);
  void cancel(std::string id, boost::asio::any_io_executor origin, std::function<void(bool)> done);
  void reach(std::uint64_t id, boost::asio::any_io_executor origin,
             std::function<void(std::optional<node_operations::message_reach>)> done);
  // How many wait (read on any thread).
  std::size_t waiting() const { return waiting_.load(std::memory_order_relaxed); }

 private:
  void publish_due(const std::string& request_json);

  event_loop& home_;
  std::function<void(const publish_request&)> publish_;
  std::unique_ptr<schedule> schedule_;  // used on home_'s thread only
  std::atomic<std::size_t> waiting_{0};
};

}  // namespace ringcast
