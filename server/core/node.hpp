// The node (docs/architecture.md, "The node"): every event loop's hub seen as one, over one
// backplane (alone, or shared through Redis). It owns the one sequencer (the last id, what was
// delivered, the sticky quota), seeds the loops at start-up, delivers each numbered message to
// every loop, takes messages down on every loop, and kicks, evicts and displaces across loops.
// No sockets: the process (net/server) gives it its loops, and tests give it simulated ones.
//
// Threads: publish, kick, take_down, presence and claim_session from any loop (answers on the
// caller's); the backplane_node calls as core/backplane.hpp says.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/backplane.hpp"
#include "core/every_loop.hpp"
#include "core/handover_messages.hpp"
#include "core/home_slots.hpp"
#include "core/node_health.hpp"
#include "core/node_messages.hpp"
#include "core/node_presence.hpp"
#include "core/node_promotions.hpp"
#include "core/promotions.hpp"
#include "core/sequencer.hpp"
#include "core/session_budget.hpp"

namespace ringcast {

class node final : public node_messages,
                   public node_promotions,
                   public node_presence,
                   public node_health,
                   public backplane_node {
 public:
  // The backplane the settings ask for, made for this node (it outlives the backplane); `home`
  // is loop 0, `counts` this node's presence.
  using backplane_factory = std::function<std::unique_ptr<backplane>(
      backplane_node& node, sequencer& ids, const node_loop& home, const presence_counts& counts)>;
  struct parts {
    std::vector<node_loop> loops;  // at least one; loop 0 is home
    std::uint64_t floor_id;        // ids of this run start above it
    std::size_t max_sticky;        // --max-sticky
    presence_counts& presence;     // every hub reports to it; it outlives them
    session_budget* sessions;      // --max-sessions over every loop; null: each hub alone
    home_slots* homes = nullptr;   // where each user's sessions live; null: hubs alone (tests)
  };
  node(parts p, const backplane_factory& make_backplane);
  // With the loops stopped or idle: no hub reports to the backplane any longer, then it goes.
  ~node();
  node(const node&) = delete;
  node& operator=(const node&) = delete;

  // On the home loop, once, before any client: the backplane starts (with --redis it reads the
  // cluster's history, then seeds every loop).
  void start();

  // node_messages
  void publish(const publish_request& req, boost::asio::any_io_executor origin,
               std::function<void(std::optional<publish_receipt>)> done) override;
  void kick(std::string user, boost::asio::any_io_executor origin,
            std::function<void(std::size_t)> done) override;
  // node_promotions: the schedule and reach through `promotions` (on the home loop)
  void schedule_publish(std::string request_json, std::int64_t at_ms,
                        boost::asio::any_io_executor origin,
                        std::function<void(promotion_outcome, std::string)> done) override {
    promotions_.add(std::move(request_json), at_ms, std::move(origin), std::move(done));
  }
  void list_scheduled(
      boost::asio::any_io_executor origin,
      std::function<void(std::optional<std::vector<scheduled_promotion>>)> done) override {
    promotions_.list(std::move(origin), std::move(done));
  }
  void cancel_scheduled(std::string id, boost::asio::any_io_executor origin,
                        std::function<void(promotion_outcome)> done) override {
    promotions_.cancel(std::move(id), std::move(origin), std::move(done));
  }
  void reach(std::uint64_t id, boost::asio::any_io_executor origin,
             std::function<void(promotion_outcome, message_reach)> done) override {
    promotions_.reach(id, std::move(origin), std::move(done));
  }
  void recent_messages(
      std::size_t limit, boost::asio::any_io_executor origin,
      std::function<void(promotion_outcome, std::vector<message_reach>)> done) override {
    promotions_.recent(limit, std::move(origin), std::move(done));
  }
  // DELETE /admin/messages/<id> (docs/protocol.md, "Promotions in force"): expired at once on
  // every loop, and with --redis on every node. done(not_found) if it is not held or in force.
  void take_down(std::uint64_t id, boost::asio::any_io_executor origin,
                 std::function<void(promotion_outcome)> done) override;
  // Promotions waiting (with --redis: in the cluster, at the last claim or add). Any thread.
  std::size_t scheduled() const { return promotions_.waiting(); }
  // node_presence
  void presence(const presence_query& q, boost::asio::any_io_executor origin,
                std::function<void(std::optional<presence_figures>)> done) override;
  // node_health
  std::string why_unhealthy() const override;
  std::string redis_problem() const override { return backplane_->state().problem; }

  // Session `key` ("user/sid") is held here from now on; done(known elsewhere) on `origin`.
  void claim_session(std::string key, boost::asio::any_io_executor origin,
                     std::function<void(bool)> done) {
    backplane_->claim_session(std::move(key), std::move(origin), std::move(done));
  }
  // Asks the loops after `from`, in turn, to drop their longest-idle session, until one had one.
  void displace_idle_session(std::size_t from) { displace_from(from, 1); }

  backplane& shared() { return *backplane_; }

  // Ending a Pusher user's connections (POST /apps/{id}/users/{user}/terminate_connections) rides
  // on the kick: the kick of "#server-to-user-{user}", a name no ringcast user can have, reaches
  // every other node, where `end_here(user)` ends that user's Pusher connections on every loop
  // (the door is the server's, so it gives this; before start()).
  void on_pusher_user_kick(std::function<void(std::string user_id)> end_here) {
    end_pusher_user_ = std::move(end_here);
  }
  void announce_pusher_user_kick(std::string_view user_id);
  sequencer::figures figures() const { return ids_.read(); }

  // Upgrade in place (core/node_handover.cpp). hold_numbering: `f` runs with numbering held.
  void hold_numbering(const std::function<void()>& f) { ids_.hold(f); }
  // With every loop stopped: the node's state; `messages` gets every message it names, by id.
  upgrade::handover_state capture(handover_messages& messages) const;
  // Into hubs that hold nothing yet, before the loops run; false (logged) if it is refused.
  // `messages` gets the restored messages, by id.
  bool restore(const std::string& bytes, handover_messages& messages);
  // Started without the node's state: ids still go on above `last_id`.
  void raise_floor(std::uint64_t last_id) { ids_.raise_floor(last_id); }

  // backplane_node (core/backplane.hpp)
  void seed_history(std::vector<message_ptr> retained) override;
  void seed_in_force(std::vector<message_ptr> in_force) override;
  void deliver(const message_ptr& m, boost::asio::any_io_executor where,
               std::function<void(std::size_t)> done) override;
  void close_user(std::string user) override;
  void evict(std::string key) override;
  void expire_message(std::uint64_t id) override;
  void publish_scheduled(const std::string& request_json) override;
  std::vector<message_ptr> retained() override;

 private:
  const node_loop& home() const { return every_.home(); }
  void displace_from(std::size_t from, std::size_t asked);

  std::vector<node_loop> loops_;
  every_loop<node_loop> every_;
  sequencer ids_;
  presence_counts& presence_;
  std::unique_ptr<backplane> backplane_;  // on the home loop (some calls from any loop)
  promotions promotions_{home(), *backplane_};
  // The backplane's history and promotions in force are on every loop (with --redis they are read
  // at start-up, after the listener opens): until then /healthz sends no clients here.
  std::atomic<bool> caught_up_{false};
  std::function<void(std::string user_id)> end_pusher_user_;  // on_pusher_user_kick
};

}  // namespace ringcast
