// The connect hook of one event loop (--connect-hook, docs/protocol.md "Connect hook"): before a
// client is admitted, its connect is POSTed to the backend, which admits it (200, possibly
// setting its user and channels), refuses it (403), or fails to say (anything else, no answer
// within --hook-timeout, no connection). The wait is a node in the loop's wheel, one per connect
// being asked about; nothing else on the loop waits for it. The POSTs are signed with
// --hook-secret, go over kept-alive connections (backend_pool), and at most
// --connect-hook-concurrency are in flight on the node: beyond, a connect is not asked about.
#pragma once

#include <boost/asio/io_context.hpp>

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/loop_timers.hpp"
#include "hooks/backend_pool.hpp"
#include "hooks/concurrency_cap.hpp"
#include "hooks/http_exchange.hpp"
#include "protocol/connect_answer.hpp"

namespace ringcast {

struct connect_question {
  std::string user, sid, transport, remote_addr, cookie, user_agent;
  std::optional<std::string> origin;  // the Origin header; none: not sent (not a browser)
  std::string host;                   // the Host header
  std::int64_t ts = 0;                // Unix ms when asked: lets the backend refuse a replay
};

struct connect_verdict {
  enum class kind {
    admit,        // the backend said 200 with a well-formed answer
    refuse,       // the backend said 403
    unavailable,  // no answer in time, no connection, or a 5xx: --connect-hook-fallback decides
    bad_answer,   // an answer that is neither (3xx, other 4xx, not JSON, wrong types, too big)
    overloaded,   // --connect-hook-concurrency POSTs already in flight: not asked, never admitted
  };
  kind what = kind::unavailable;
  connect_answer changes;  // kind::admit: what the backend set
};

struct connect_hook_counters {
  std::uint64_t admitted = 0, refused = 0, unavailable = 0, bad_answers = 0, overloaded = 0;
};

struct connect_hook_settings {
  http_url url;
  std::chrono::milliseconds timeout{2'000};
  std::shared_ptr<const tls_context> tls;
  std::string secret;              // --hook-secret: X-Ringcast-Signature on every POST
  concurrency_cap* cap = nullptr;  // the node's --connect-hook-concurrency; none: no cap
  std::size_t max_idle = 64;       // kept-alive connections per loop
};

class connect_gate {
 public:
  // `timers`: the loop's, holding a node per connect being asked about.
  connect_gate(boost::asio::io_context& io, loop_timers& timers,
               const connect_hook_settings& settings);
  ~connect_gate();

  // `done` runs later on this loop, exactly once (not at all if the gate is destroyed first).
  void ask(const connect_question& q, std::function<void(connect_verdict)> done);
  const connect_hook_counters& counters() const { return counters_; }

 private:
  class pending;
  void settle(pending& p, connect_verdict v);

  boost::asio::io_context& io_;
  loop_timers& timers_;
  const connect_hook_settings& settings_;
  std::list<std::shared_ptr<pending>> pending_;
  std::shared_ptr<backend_pool> pool_;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);  // a refusal posted outlives no gate
  connect_hook_counters counters_;
};

}  // namespace ringcast
