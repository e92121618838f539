#include "core/node.hpp"

#include <boost/asio/post.hpp>

#include "core/log.hpp"
#include "pusher/pusher_names.hpp"

namespace ringcast {

namespace asio = boost::asio;

namespace {

std::vector<node_loop*> addresses_of(std::vector<node_loop>& loops) {
  std::vector<node_loop*> out;
  for (auto& l : loops)
    out.push_back(&l);
  return out;
}

// The request of a promotion that came due, to publish at once; nullopt (logged) if it no longer
// parses.
std::optional<publish_request> due_request(const std::string& request_json) {
  // Its spread was checked against --max-spread when it was accepted; a field it was stored with
  // by another version is no reason to drop it.
  auto req =
      parse_publish_request(request_json, std::chrono::milliseconds::max(), unknown_fields::ignore);
  if (!req) {  // it was accepted once: only a bug gets here
    log_warn("scheduled publish no longer parses ({}): {}", req.error, request_json);
    return std::nullopt;
  }
  req.value->at_ms.reset();
  req.value->delay.reset();
  return std::move(*req.value);
}

}  // namespace

// Presence is observed before the backplane: a shared one copies presence's counts when it
// rewrites them.
node::node(parts p, const backplane_factory& make_backplane)
    : loops_(std::move(p.loops)),
      every_(addresses_of(loops_)),
      ids_(p.floor_id, p.max_sticky),
      presence_(p.presence),
      backplane_(make_backplane(*this, ids_, home(), presence_)) {
  caught_up_ = !backplane_->state().shared;  // alone, its history is the loops' own
  for (std::size_t i = 0; i < loops_.size(); ++i) {
    hub& h = loops_[i].sessions();
    if (p.homes) h.share_homes(*p.homes, i);
    if (p.sessions) {
      h.share_budget(*p.sessions);
      h.displace_elsewhere_with([this, i] { displace_idle_session(i); });
    }
    h.observe(presence_);
    h.observe(*backplane_);
    h.on_detached([this](const session& s) { backplane_->release_session(s); });
  }
}

node::~node() {
  for (const node_loop& l : loops_) {
    l.sessions().unobserve(*backplane_);
    l.sessions().on_detached({});
  }
}

void node::start() {
  asio::post(home().io(), [this] { backplane_->start(); });
}

void node::displace_from(std::size_t from, std::size_t asked) {
  if (asked >= loops_.size()) return;
  const std::size_t next = (from + 1) % loops_.size();
  asio::post(loops_[next].io(), [this, next, asked] {
    if (!loops_[next].sessions().displace_longest_idle()) displace_from(next, asked + 1);
  });
}

void node::publish(const publish_request& req, asio::any_io_executor origin,
                   std::function<void(std::optional<publish_receipt>)> done) {
  if (req.sticky && !ids_.admit_sticky(home().timers().unix_ms())) {
    asio::post(origin, [done = std::move(done)] {
      done(publish_receipt{.id = 0, .recipients = 0, .too_many = true});
    });
    return;
  }
  backplane_->publish(
      req, std::move(origin), [done = std::move(done)](std::optional<backplane::published> p) {
        done(p ? std::optional<publish_receipt>({p->id, p->recipients}) : std::nullopt);
      });
}

void node::kick(std::string user, asio::any_io_executor origin,
                std::function<void(std::size_t)> done) {
  backplane_->announce_kick(user);
  every_.map_reduce<std::size_t>(
      [user = std::move(user)](const node_loop& l) { return l.sessions().kick(user, l.now()); },
      std::move(origin), summed(std::move(done)));
}

void node::take_down(std::uint64_t id, asio::any_io_executor origin,
                     std::function<void(promotion_outcome)> done) {
  asio::post(home().io(), [this, id, origin, done = std::move(done)]() mutable {
    auto answer = [origin, done = std::move(done)](promotion_outcome o) mutable {
      asio::post(origin, [o, done = std::move(done)] { done(o); });
    };
    // Every loop holds the same messages: the home loop answers whether it is held and in force.
    const message_ptr m = home().sessions().find_held(id);
    if (!m || m->expired.load(std::memory_order_relaxed))
      return answer(promotion_outcome::not_found);
    // The backplane has every node, this one included, expire it (expire_message).
    backplane_->take_down(id, [answer = std::move(answer)](bool ok) mutable {
      answer(ok ? promotion_outcome::ok : promotion_outcome::unavailable);
    });
  });
}

void node::presence(const presence_query& q, asio::any_io_executor origin,
                    std::function<void(std::optional<presence_figures>)> done) {
  asio::post(home().io(), [this, q, origin, done = std::move(done)]() mutable {
    backplane_->presence(
        q, [origin, done = std::move(done)](std::optional<presence_figures> f) mutable {
          asio::post(origin, [f = std::move(f), done = std::move(done)] { done(f); });
        });
  });
}

std::string node::why_unhealthy() const {
  if (!backplane_->state().reachable) return redis_unavailable(*this);
  if (!caught_up_) return "reading the cluster's history and promotions in force (start-up)";
  return {};
}

void node::seed_history(std::vector<message_ptr> retained) {
  ids_.seed(retained);
  every_.invoke_on_all([retained = std::move(retained)](const node_loop& l) {
    l.sessions().seed_history(retained, l.now(), l.timers().unix_ms());
  });
}

void node::seed_in_force(std::vector<message_ptr> in_force) {
  ids_.seed(in_force);
  every_.map_reduce<bool>(
      [in_force = std::move(in_force)](const node_loop& l) {
        l.sessions().seed_in_force(in_force, l.now(), l.timers().unix_ms());
        return true;
      },
      home().io().get_executor(), [this](std::vector<bool>) { caught_up_ = true; });
}

// Under the sequencer (core/sequencer.hpp): posted to every loop in id order.
void node::deliver(const message_ptr& m, asio::any_io_executor where,
                   std::function<void(std::size_t)> done) {
  every_.map_reduce<std::size_t>(
      [m](const node_loop& l) { return l.sessions().publish(m, l.now()); }, std::move(where),
      summed(std::move(done)));
}

void node::announce_pusher_user_kick(std::string_view user_id) {
  backplane_->announce_kick(std::string(pusher::server_to_user_prefix) + std::string(user_id));
}

void node::close_user(std::string user) {
  if (user.starts_with(pusher::server_to_user_prefix)) {  // announce_pusher_user_kick's
    if (end_pusher_user_) end_pusher_user_(user.substr(pusher::server_to_user_prefix.size()));
    return;
  }
  every_.invoke_on_all(
      [user = std::move(user)](const node_loop& l) { l.sessions().kick(user, l.now()); });
}

// Whichever loop holds the user's slot (home_slots.hpp) finds the session; the others find nothing.
// An eviction comes once per session another node takes over.
void node::evict(std::string key) {
  if (!split_session_key(key)) return;
  every_.invoke_on_all(
      [key = std::move(key)](const node_loop& l) { l.sessions().evict(key, l.now()); });
}

// On the home loop: every loop holds the same messages, so it knows whether it is held.
void node::expire_message(std::uint64_t id) {
  const message_ptr m = home().sessions().find_held(id);
  if (!m || !home().sessions().claim_take_down(m)) return;  // ttl passed, or taken down already
  ids_.forget_sticky(m->id);
  every_.invoke_on_all([m](const node_loop& l) { l.sessions().take_down(m, l.now()); });
}

void node::publish_scheduled(const std::string& request_json) {
  auto req = due_request(request_json);
  if (!req) return;
  publish(*req, home().io().get_executor(), [](std::optional<publish_receipt> r) {
    if (r && r->too_many)
      log_warn("scheduled sticky publish not sent: --max-sticky messages are in force");
  });
}

std::vector<message_ptr> node::retained() {
  return home().sessions().retained();
}

}  // namespace ringcast
