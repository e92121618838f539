#include "hooks/pusher_webhooks.hpp"

#include <boost/asio/post.hpp>

#include <random>

#include "core/log.hpp"
#include "pusher/pusher_crypto.hpp"

namespace ringcast {
namespace {

// The backend's answer to a webhook is not read: only its status counts.
constexpr std::size_t max_answer_body = 64 * 1024;

}  // namespace

pusher::signed_webhook pusher_webhook_post(const pusher::app& app, std::int64_t time_ms,
                                           std::string_view outbox_body) {
  // The outbox's body is {"events":[...]}: time_ms goes in front, as Pusher orders them.
  std::string body = R"({"time_ms":)" + std::to_string(time_ms) + ",";
  body.append(outbox_body.substr(1));
  std::string signature = pusher::hmac_sha256_hex(app.secret, body);
  return {std::move(body), app.key, std::move(signature)};
}

pusher_webhook_target::pusher_webhook_target(loop_timers& timers, const pusher::app& app,
                                             std::string url_text, webhook_http_post http,
                                             hook_outbox::limits limits, std::uint32_t backoff_seed)
    : timers_(timers),
      app_(app),
      url_text_(std::move(url_text)),
      http_(std::move(http)),
      outbox_(timers, *this, limits, retry_backoff(backoff_seed)) {}

pusher_webhook_target::~pusher_webhook_target() {
  if (in_flight_) in_flight_->cancel();
}

void pusher_webhook_target::post(std::string body, std::function<void(bool)> done) {
  auto hook = pusher_webhook_post(app_, timers_.unix_ms(), body);
  std::vector<http_exchange::header> headers{
      {std::string(pusher::webhook_key_header), std::move(hook.key)},
      {std::string(pusher::webhook_signature_header), std::move(hook.signature)}};
  const std::uint64_t attempt = ++attempt_;
  in_flight_ = http_(
      std::move(hook.body), std::move(headers),
      [this, alive = std::weak_ptr<int>(alive_), attempt, done = std::move(done)](http_answer a) {
        if (alive.expired() || attempt != attempt_) return;  // destroyed, or given up
        in_flight_.reset();
        const bool accepted = a.status >= 200 && a.status < 300;
        if (!accepted) {
          failures_.warn(timers_.now(), "pusher webhook: POST {} {}; kept for a retry", url_text_,
                         a.status ? fmt::format("answered {}", a.status) : a.failure);
        }
        done(accepted);
      });
}

void pusher_webhook_target::abort() {
  ++attempt_;
  if (!in_flight_) return;
  failures_.warn(timers_.now(), "pusher webhook: POST {} not answered in time; kept for a retry",
                 url_text_);
  std::exchange(in_flight_, nullptr)->cancel();
}

pusher_webhooks::pusher_webhooks(boost::asio::io_context& home, loop_timers& timers,
                                 pusher::app app, settings s)
    : home_(home), app_(std::move(app)), settings_(std::move(s)) {
  std::random_device random;
  for (const auto& url : settings_.urls) {
    auto http = [&home, &url, tls = settings_.tls](std::string body,
                                                   std::vector<http_exchange::header> headers,
                                                   http_exchange::handler done) {
      return http_exchange::post(home, url, tls, std::move(body), std::move(headers),
                                 max_answer_body, std::move(done));
    };
    targets_.push_back(std::make_unique<pusher_webhook_target>(
        timers, app_, url.text, std::move(http), settings_.limits, random()));
  }
}

void pusher_webhooks::push(std::string event_json) {
  boost::asio::post(home_, [this, event = std::move(event_json)] {
    for (auto& t : targets_)
      t->push(event);
  });
}

void pusher_webhooks::flush_all() {
  for (auto& t : targets_)
    t->flush_all();
}

hook_counters pusher_webhooks::counters() const {
  hook_counters sum;
  for (const auto& t : targets_) {
    const hook_counters c = t->counters();
    sum.sent += c.sent;
    sum.batches += c.batches;
    sum.retried += c.retried;
    sum.failed += c.failed;
    sum.dropped += c.dropped;
    sum.queued += c.queued;
    sum.backend_up = sum.backend_up && c.backend_up;
  }
  return sum;
}

bool pusher_webhooks::empty() const {
  for (const auto& t : targets_)
    if (!t->empty()) return false;
  return true;
}

}  // namespace ringcast
