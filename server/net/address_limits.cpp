#include "net/address_limits.hpp"

#include "protocol/client_address.hpp"

namespace ringcast {

namespace {

// A bucket refills from empty in burst / rate = 1 s.
constexpr auto refill_time = std::chrono::seconds(1);

}  // namespace

address_limits::address_limits() : address_limits(settings{}) {}

address_limits::address_limits(settings s) : settings_(s) {}

token_bucket::shape address_limits::shape() const {
  const double rate = settings_.connect_rate;
  return {rate, rate};
}

std::unordered_map<address_limits::address, address_limits::entry>::iterator
address_limits::entry_of(const address& a, time_point now) {
  if (now > last_now_) last_now_ = now;
  sweep(now);
  return table_
      .try_emplace(address_group(a, settings_.ipv6_prefix),
                   entry{0, token_bucket(), false})
      .first;
}

address_limits::outcome address_limits::open_connection(const address& a, time_point now) {
  std::lock_guard lock(mutex_);
  if (settings_.max_connections == 0) return {};
  const auto it = entry_of(a, now);
  if (it->second.open >= settings_.max_connections) {
    ++refused_connections_;
    return {slot(), refusal::too_many_connections, {}};
  }
  ++it->second.open;
  return {slot(this, it->first), refusal::none, {}};
}

address_limits::slot address_limits::adopt_connection(const address& a, time_point now) {
  std::lock_guard lock(mutex_);
  if (settings_.max_connections == 0) return {};
  const auto it = entry_of(a, now);
  ++it->second.open;
  return slot(this, it->first);
}

address_limits::outcome address_limits::connect(const address& a, time_point now) {
  std::lock_guard lock(mutex_);
  if (now > last_now_) last_now_ = now;
  if (settings_.connect_rate == 0) return {};
  const auto it = entry_of(a, now);
  entry& e = it->second;
  if (!e.bucket.take(now, shape())) {
    ++refused_rate_;
    const auto wait = std::chrono::ceil<std::chrono::seconds>(e.bucket.wait(now, shape()));
    forget_if_idle(it, now);
    return {slot(), refusal::too_fast, std::max(wait, std::chrono::seconds(1))};
  }
  forget_if_idle(it, now);
  return {};
}

// `a` is the group the slot was counted under (a SIGHUP may have changed the prefix since).
void address_limits::release(const address& a) {
  std::lock_guard lock(mutex_);
  const auto it = table_.find(a);
  if (it == table_.end()) return;
  --it->second.open;
  forget_if_idle(it, last_now_);
}

void address_limits::forget_if_idle(std::unordered_map<address, entry>::iterator it,
                                    time_point now) {
  entry& e = it->second;
  if (e.open > 0 || e.queued) return;
  if (settings_.connect_rate == 0 || e.bucket.full(now, shape())) {
    table_.erase(it);
    return;
  }
  e.queued = true;
  idle_.emplace_back(it->first, now + refill_time);
}

void address_limits::sweep(time_point now) {
  // Queued in the order of their times: each was queued at its `now` + 1 s.
  while (!idle_.empty() && idle_.front().second <= now) {
    const address a = std::move(idle_.front().first);
    idle_.pop_front();
    const auto it = table_.find(a);
    if (it == table_.end()) continue;
    it->second.queued = false;
    forget_if_idle(it, now);
  }
}

void address_limits::configure(settings s) {
  std::lock_guard lock(mutex_);
  settings_ = s;
}

address_limits::counters address_limits::snapshot() const {
  std::lock_guard lock(mutex_);
  return {refused_connections_, refused_rate_, table_.size()};
}

}  // namespace ringcast
