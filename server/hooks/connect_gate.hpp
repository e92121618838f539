// The connect hook of one event loop (--connect-hook, docs/protocol.md "Connect hook"): before a
// client is admitted, its connect is POSTed to the backend, which admits it (200, possibly
// setting its user and channels), refuses it (403), or fails to say (anything else, no answer
// within --hook-timeout, no connection). The wait is a node in the loop's wheel, one per connect
// being asked about; nothing else on the loop waits for it.
#pragma once

#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <string>
#include <vector>

#include "connect_answer.hpp"
#include "http_exchange.hpp"
#include "hub.hpp"

namespace ringcast {

struct connect_question {
  std::string user, sid, transport, remote_addr, cookie, user_agent;
};

struct connect_verdict {
  enum class kind {
    admit,        // the backend said 200 with a well-formed answer
    refuse,       // the backend said 403
    unavailable,  // no answer in time, no connection, or a 5xx: --connect-hook-fallback decides
    bad_answer,   // an answer that is neither (3xx, other 4xx, not JSON, wrong types, too big)
  };
  kind what = kind::unavailable;
  connect_answer changes;  // kind::admit: what the backend set
};

struct connect_hook_counters {
  std::uint64_t admitted = 0, refused = 0, unavailable = 0, bad_answers = 0;
};

struct connect_hook_settings {
  http_url url;
  std::chrono::milliseconds timeout{2'000};
  std::shared_ptr<const tls_context> tls;
};

class connect_gate {
 public:
  using clock_fn = std::function<hub::time_point()>;
  connect_gate(boost::asio::io_context& io, hub& timers, const connect_hook_settings& settings,
               clock_fn now);
  ~connect_gate();

  // `done` runs later on this loop, exactly once (not at all if the gate is destroyed first).
  void ask(const connect_question& q, std::function<void(connect_verdict)> done);
  const connect_hook_counters& counters() const { return counters_; }

 private:
  class pending;
  void settle(pending& p, connect_verdict v);

  boost::asio::io_context& io_;
  hub& timers_;
  const connect_hook_settings& settings_;
  clock_fn now_;
  std::list<std::shared_ptr<pending>> pending_;
  connect_hook_counters counters_;
};

}  // namespace ringcast
