// The promotions (docs/protocol.md, "Promotions"), as the admin API sees them: scheduled
// publishes, a message's reach, a take-down. Implemented by the node (core/node.hpp, which hands
// them to `promotions`). Every `done` runs on `origin`. With --redis the schedule and the reach are
// the cluster's, in Redis: `unavailable` when it is unreachable.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/backplane.hpp"

namespace ringcast {

class node_promotions {
 public:
  using promotion_outcome = ringcast::promotion_outcome;      // core/backplane.hpp
  using scheduled_promotion = ringcast::scheduled_promotion;  // core/backplane.hpp
  // Waits `request_json` (a valid publish request) until `at_ms`; done(ok, id), or too_many when
  // --max-scheduled promotions already wait.
  virtual void schedule_publish(std::string request_json, std::int64_t at_ms,
                                boost::asio::any_io_executor origin,
                                std::function<void(promotion_outcome, std::string id)> done) = 0;
  // nullopt: unavailable.
  virtual void list_scheduled(
      boost::asio::any_io_executor origin,
      std::function<void(std::optional<std::vector<scheduled_promotion>>)> done) = 0;
  // ok: it was waiting and now will not be published; not_found: published, cancelled or unknown.
  virtual void cancel_scheduled(std::string id, boost::asio::any_io_executor origin,
                                std::function<void(promotion_outcome)> done) = 0;
  struct message_reach {
    std::uint64_t id = 0;
    std::int64_t published_ms = 0;
    std::uint64_t recipients = 0, delivered = 0, acked = 0;
    bool expired = false;
    std::chrono::milliseconds spread{0};  // of a paced publish: delivered rises over it
    bool sticky = false;                  // in force for connects without `since`
    std::string label;                    // its title, or the start of its data (message_label)
  };
  // not_found: the message is not (or no longer) in history.
  virtual void reach(std::uint64_t id, boost::asio::any_io_executor origin,
                     std::function<void(promotion_outcome, message_reach)> done) = 0;
  // Expires the message at once on every node (docs/protocol.md, "Promotions in force"): ok, or
  // not_found when no loop holds it or it is already expired, or unavailable (--redis).
  virtual void take_down(std::uint64_t id, boost::asio::any_io_executor origin,
                         std::function<void(promotion_outcome)> done) = 0;
  // The `limit` newest messages in history with their reach, newest first (ok or unavailable).
  virtual void recent_messages(
      std::size_t limit, boost::asio::any_io_executor origin,
      std::function<void(promotion_outcome, std::vector<message_reach>)> done) = 0;

 protected:
  ~node_promotions() = default;
};

}  // namespace ringcast
