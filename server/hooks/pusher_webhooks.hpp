// Pusher's webhooks on their way to every --pusher-webhook-url (docs/pusher.md, "Webhooks"),
// through the event hooks' outbox (hook_outbox.hpp: bounded queue, batches, failback retry on
// the wheel), one outbox per URL, all on the home loop (loop 0): the events come from every loop
// (core/pusher_channels.hpp) and are posted there.
//
// A batch is the outbox's {"events":[...]}, sent as Pusher sends it: {"time_ms":T,"events":[...]}
// with T the time of this attempt (a retry is signed again), Content-Type: application/json,
// X-Pusher-Key and X-Pusher-Signature (pusher/pusher_webhook.hpp), which the `pusher` SDK's
// webhook().isValid() checks.
#pragma once

#include <boost/asio/io_context.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/pusher_channels.hpp"
#include "core/repeated_warning.hpp"
#include "hooks/hook_outbox.hpp"
#include "hooks/http_exchange.hpp"
#include "pusher/pusher_app.hpp"
#include "pusher/pusher_webhook.hpp"

namespace ringcast {

// A batch of the outbox as Pusher posts it at `time_ms` (Unix milliseconds), signed.
pusher::signed_webhook pusher_webhook_post(const pusher::app& app, std::int64_t time_ms,
                                           std::string_view outbox_body);

// The POST of one batch to one URL: a function so that tests answer it on a simulated clock
// (the real one is http_exchange::post). Exactly one answer, later, unless cancelled.
using webhook_http_post = std::function<std::shared_ptr<http_exchange>(
    std::string body, std::vector<http_exchange::header> headers, http_exchange::handler done)>;

// One URL's outbox and what POSTs its batches.
class pusher_webhook_target final : private hook_sender {
 public:
  pusher_webhook_target(loop_timers& timers, const pusher::app& app, std::string url_text,
                        webhook_http_post http, hook_outbox::limits limits,
                        std::uint32_t backoff_seed);
  ~pusher_webhook_target();

  void push(std::string event_json) { outbox_.push(std::move(event_json)); }
  void flush_all() { outbox_.flush_all(); }
  bool empty() const { return outbox_.empty(); }
  hook_counters counters() const { return outbox_.counters(); }

 private:
  void post(std::string body, std::function<void(bool)> done) override;
  void abort() override;

  loop_timers& timers_;
  const pusher::app& app_;
  std::string url_text_;
  webhook_http_post http_;
  std::shared_ptr<http_exchange> in_flight_;
  std::uint64_t attempt_ = 0;  // of the POST in flight; an answer of an earlier one is ignored
  repeated_warning failures_{std::chrono::seconds(5)};
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);
  hook_outbox outbox_;
};

// Every URL's target, on the home loop; the sink pusher_channels pushes to from any loop.
class pusher_webhooks final : public pusher_webhook_sink {
 public:
  struct settings {
    std::vector<http_url> urls;
    hook_outbox::limits limits;  // --hook-batch, --hook-flush, --hook-timeout, --hook-queue
    std::shared_ptr<const tls_context> tls;  // for https URLs
  };
  pusher_webhooks(boost::asio::io_context& home, loop_timers& timers, pusher::app app, settings s);

  // Any thread: the event is posted to the home loop and queued for every URL.
  void push(std::string event_json) override;
  // On the home loop: drain (the outboxes send without waiting), and whether all is sent.
  void flush_all();
  bool empty() const;
  // On the home loop: every URL's outbox summed; backend_up when every URL's is.
  hook_counters counters() const;

 private:
  boost::asio::io_context& home_;
  const pusher::app app_;    // the targets sign with it
  const settings settings_;  // the targets' POSTs name its URLs
  std::vector<std::unique_ptr<pusher_webhook_target>> targets_;
};

}  // namespace ringcast
