// Per-address limits, shared by every event loop: --max-connections-per-ip (the TCP connections
// an address holds open, from accept() to their end, whatever they are doing) and
// --connect-rate-per-ip (connects to /ws, /sse, /poll per second, a token bucket with a burst of
// the same number). The address is the client's: the TCP peer, or for a --trusted-proxy peer its
// X-Forwarded-For client (client_address.hpp), counted once the request head names it. An IPv6
// address counts as its --ipv6-prefix network (one customer's /64 is one address), an IPv4
// address as itself (address_group).
//
// The table has an entry only for an address that holds a connection or whose bucket is not
// full again; an entry left with neither is freed at the next connect after its bucket has had
// time to refill (at most 1 s, since the burst is one second's worth). So it is bounded by the
// open connections plus the connects of the last second, whatever the addresses.
// One mutex: taken once per accept, per connect and per connection's end, never while waiting.
// Time is passed in: unit-tested on a simulated clock (tests/server/net/limits_test.cpp).
#pragma once

#include <boost/asio/ip/address.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

#include "core/token_bucket.hpp"

namespace ringcast {

class address_limits {
 public:
  using clock = std::chrono::steady_clock;
  using time_point = clock::time_point;
  using address = boost::asio::ip::address;

  struct settings {
    std::size_t max_connections = 0;  // per address; 0 = no limit
    std::uint32_t connect_rate = 0;   // connects a second per address; 0 = no limit
    unsigned ipv6_prefix = 64;        // the bits of an IPv6 address that name one client
  };

  // A TCP connection counted against its address until it ends; moves with the connection.
  class slot {
   public:
    slot() = default;
    slot(slot&& o) noexcept
        : limits_(std::exchange(o.limits_, nullptr)), address_(std::move(o.address_)) {}
    slot& operator=(slot&& o) noexcept {
      std::swap(limits_, o.limits_);
      std::swap(address_, o.address_);
      return *this;
    }
    ~slot() {
      if (limits_) limits_->release(address_);
    }

   private:
    friend class address_limits;
    slot(address_limits* l, address a) : limits_(l), address_(std::move(a)) {}
    address_limits* limits_ = nullptr;
    address address_;
  };

  enum class refusal { none, too_many_connections, too_fast };
  struct outcome {
    slot held;  // open_connection's: empty when refused, or when the limit is off
    refusal refused = refusal::none;
    std::chrono::seconds retry_after{0};  // with too_fast: when a token is there, at least 1 s
  };

  struct counters {
    std::uint64_t refused_connections = 0;  // over --max-connections-per-ip
    std::uint64_t refused_rate = 0;         // over --connect-rate-per-ip
    std::size_t addresses = 0;              // entries in the table
  };

  address_limits();  // no limits
  explicit address_limits(settings s);
  address_limits(const address_limits&) = delete;
  address_limits& operator=(const address_limits&) = delete;

  // A TCP connection from `a` (at accept(), or at its request head from a trusted proxy): its slot,
  // or too_many_connections when its address holds --max-connections-per-ip already.
  outcome open_connection(const address& a, time_point now);
  // A connection that is already open and cannot be refused (handed over by an upgrade in place):
  // counted like one, even over the limit.
  slot adopt_connection(const address& a, time_point now);
  // A connect to a client endpoint from `a`: none, or too_fast over --connect-rate-per-ip.
  outcome connect(const address& a, time_point now);
  // SIGHUP: for connections and connects from now on (connections already open stay counted).
  void configure(settings s);
  counters snapshot() const;

 private:
  struct entry {
    std::size_t open = 0;
    token_bucket bucket;
    bool queued = false;  // in idle_, waiting to be freed
  };
  token_bucket::shape shape() const;
  // The entry of `a`'s group (created empty), with the lock held.
  std::unordered_map<address, entry>::iterator entry_of(const address& a, time_point now);
  void release(const address& a);
  // Frees the entries without connections whose bucket has refilled since they were queued.
  void sweep(time_point now);
  void forget_if_idle(std::unordered_map<address, entry>::iterator it, time_point now);

  mutable std::mutex mutex_;
  settings settings_;
  std::unordered_map<address, entry> table_;
  std::deque<std::pair<address, time_point>> idle_;  // when each may be freed, oldest first
  time_point last_now_{};
  std::uint64_t refused_connections_ = 0;
  std::uint64_t refused_rate_ = 0;
};

}  // namespace ringcast
