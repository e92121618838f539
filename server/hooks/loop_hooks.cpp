#include "hooks/loop_hooks.hpp"

#include <random>

#include "core/log.hpp"
#include "hooks/hook_signature.hpp"

namespace ringcast {
namespace {

// The backend's answer to an event batch is not read: only its status counts.
constexpr std::size_t max_answer_body = 64 * 1024;

}  // namespace

loop_hooks::loop_hooks(boost::asio::io_context& io, loop_timers& timers,
                       const hook_settings& settings, unsigned loop)
    : io_(io),
      timers_(timers),
      settings_(settings),
      outbox_(timers, *this, settings.limits, retry_backoff(std::random_device{}())),
      writer_(outbox_, settings.node, loop, [&timers] { return timers.unix_ms(); }) {}

loop_hooks::~loop_hooks() {
  if (in_flight_) in_flight_->cancel();
}

void loop_hooks::post(std::string body, std::function<void(bool)> done) {
  std::vector<http_exchange::header> headers;
  if (!settings_.secret.empty())
    headers.emplace_back(hook_signature_header, hook_signature(settings_.secret, body));
  const std::uint64_t attempt = ++attempt_;
  in_flight_ = http_exchange::post(
      io_, settings_.url, settings_.tls, std::move(body), std::move(headers), max_answer_body,
      [this, alive = std::weak_ptr<int>(alive_), attempt, done = std::move(done)](http_answer a) {
        // Destroyed, or given up (the answer of an aborted POST is its `cancelled`).
        if (alive.expired() || attempt != attempt_) return;
        in_flight_.reset();
        const bool accepted = a.status >= 200 && a.status < 300;
        if (!accepted) {
          failures_.warn(timers_.now(), "hook: POST {} {}; kept for a retry", settings_.url.text,
                         a.status ? fmt::format("answered {}", a.status) : a.failure);
        }
        done(accepted);
      });
}

void loop_hooks::abort() {
  ++attempt_;
  if (in_flight_) {
    failures_.warn(timers_.now(), "hook: POST {} not answered within {} ms; kept for a retry",
                   settings_.url.text, settings_.limits.timeout.count());
  }
  if (in_flight_) std::exchange(in_flight_, nullptr)->cancel();
}

}  // namespace ringcast
