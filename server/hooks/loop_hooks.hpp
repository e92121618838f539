// Event hooks of one event loop, wired: the session events it is told (events(), which the loop
// registers with its hub) are written as JSON, queued in the outbox and POSTed to --hook-url over
// HTTP(S) on this loop, signed with --hook-secret. Time comes from the loop's timers.
#pragma once

#include <boost/asio/io_context.hpp>

#include <memory>
#include <string>

#include "core/repeated_warning.hpp"
#include "hooks/hook_events.hpp"
#include "hooks/hook_outbox.hpp"
#include "hooks/http_exchange.hpp"

namespace ringcast {

struct hook_settings {
  http_url url;
  std::string secret;  // empty: no signature header
  hook_outbox::limits limits;
  std::shared_ptr<const tls_context> tls;  // for an https URL
  std::string node;                        // this node's id in event ids
};

class loop_hooks final : private hook_sender {
 public:
  loop_hooks(boost::asio::io_context& io, loop_timers& timers, const hook_settings& settings,
             unsigned loop);
  ~loop_hooks();

  // The observer to register with the loop's hub (and to remove before this is destroyed).
  session_events& events() { return writer_; }

  hook_counters counters() const { return outbox_.counters(); }
  void flush_all() { outbox_.flush_all(); }
  bool empty() const { return outbox_.empty(); }

 private:
  void post(std::string body, std::function<void(bool)> done) override;
  void abort() override;

  boost::asio::io_context& io_;
  loop_timers& timers_;
  const hook_settings& settings_;
  std::shared_ptr<http_exchange> in_flight_;
  // A backend that is down fails every retry, back to back while draining: one line every few
  // seconds with how many there were, not one per attempt.
  repeated_warning failures_{std::chrono::seconds(5)};
  std::uint64_t attempt_ = 0;  // of the POST in flight; an answer of an earlier one is ignored
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);  // answers after destruction are dropped
  hook_outbox outbox_;
  hook_event_writer writer_;
};

}  // namespace ringcast
