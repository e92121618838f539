// The backplane of a node alone (core/backplane.hpp): this process numbers the publishes with the
// node's sequencer (so every loop sees them in id order), keeps the schedule on loop 0's wheel
// (core/schedule), and answers reach and presence from its own counts. Nothing to tell other
// nodes, so kicks, take-downs and session claims end here.
#pragma once

#include <atomic>
#include <memory>

#include "core/backplane.hpp"
#include "core/schedule.hpp"
#include "core/sequencer.hpp"

namespace ringcast {

class local_backplane final : public backplane {
 public:
  // `ids`: the node's sequencer. `limit`: --max-scheduled.
  local_backplane(backplane_node& node, sequencer& ids, loop_timers& timers,
                  const presence_counts& counts, std::size_t limit);

  void start() override {}
  status state() const override { return {}; }

  void publish(const publish_request& req, boost::asio::any_io_executor origin,
               std::function<void(std::optional<published>)> done) override;
  void announce_kick(const std::string&) override {}
  void take_down(std::uint64_t id, std::function<void(bool)> done) override;
  void claim_session(std::string, boost::asio::any_io_executor,
                     std::function<void(bool)> done) override {
    done(false);
  }
  void release_session(const session&) override {}

  void schedule_add(std::string request_json, std::int64_t at_ms,
                    std::function<void(promotion_outcome, std::string)> done) override;
  void schedule_list(
      std::function<void(std::optional<std::vector<scheduled_promotion>>)> done) override;
  void schedule_cancel(const std::string& id, std::function<void(promotion_outcome)> done) override;
  std::size_t scheduled() const override { return waiting_.load(std::memory_order_relaxed); }

  void reach(const message_ptr& m, std::function<void(std::optional<reach_counts>)> done) override;
  void presence(const presence_query& q,
                std::function<void(std::optional<presence_figures>)> done) override;

  // session_events: presence_counts counts them already.
  void on_connect(const session&, bool) override {}
  void on_disconnect(const session&, std::string_view) override {}
  void on_subscribe(const session&, const std::vector<std::string>&) override {}
  void on_unsubscribe(const session&, const std::vector<std::string>&) override {}

  // local_backplane_handover.cpp: the schedule.
  void capture(upgrade::handover_state& state, timing_wheel::time_point now) override;
  void restore(const upgrade::handover_state& state, timing_wheel::time_point now) override;

 private:
  backplane_node& node_;
  sequencer& ids_;
  loop_timers& timers_;  // loop 0's
  const presence_counts& counts_;
  std::atomic<std::size_t> waiting_{0};
  std::unique_ptr<schedule> schedule_;  // on the home loop only
};

}  // namespace ringcast
