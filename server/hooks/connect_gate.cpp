#include "hooks/connect_gate.hpp"

#include <boost/asio/post.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "core/log.hpp"
#include "hooks/hook_signature.hpp"

namespace ringcast {
namespace {

// An admission answer is a user and at most 32 channel names: far below this.
constexpr std::size_t max_answer_body = 16 * 1024;

std::string body_of(const connect_question& q) {
  boost::json::value origin = nullptr;
  if (q.origin) origin = boost::json::string(*q.origin);
  return boost::json::serialize(
      boost::json::object{{"user", q.user},
                          {"sid", q.sid},
                          // The sid again, as before "sid" was added (events' "session" is
                          // "user/sid"): kept for backends that read it.
                          {"session", q.sid},
                          {"transport", q.transport},
                          {"remote_addr", q.remote_addr},
                          {"origin", std::move(origin)},
                          {"host", q.host},
                          {"ts", q.ts},
                          {"headers", {{"cookie", q.cookie}, {"user-agent", q.user_agent}}}});
}

}  // namespace

class connect_gate::pending final : public loop_timer {
 public:
  pending(connect_gate& gate, std::function<void(connect_verdict)> done)
      : loop_timer(gate.timers_), gate_(gate), done_(std::move(done)) {}
  void on_timer(time_point) override {
    log_warn("connect hook: POST {} not answered within {} ms", gate_.settings_.url.text,
             gate_.settings_.timeout.count());
    gate_.settle(*this, {connect_verdict::kind::unavailable, {}});
  }
  std::list<std::shared_ptr<pending>>::iterator self;
  std::shared_ptr<http_exchange> exchange;

 private:
  friend class connect_gate;
  connect_gate& gate_;
  std::function<void(connect_verdict)> done_;
};

connect_gate::connect_gate(boost::asio::io_context& io, loop_timers& timers,
                           const connect_hook_settings& settings)
    : io_(io),
      timers_(timers),
      settings_(settings),
      pool_(std::make_shared<backend_pool>(settings.max_idle)) {}

connect_gate::~connect_gate() {
  for (auto& p : pending_) {
    if (p->exchange) p->exchange->cancel();
    if (settings_.cap) settings_.cap->release();
  }
}

void connect_gate::ask(const connect_question& q, std::function<void(connect_verdict)> done) {
  if (settings_.cap && !settings_.cap->try_acquire()) {
    ++counters_.overloaded;
    boost::asio::post(io_, [alive = std::weak_ptr<int>(alive_), done = std::move(done)] {
      if (alive.lock()) done({connect_verdict::kind::overloaded, {}});
    });
    return;
  }
  std::string body = body_of(q);
  std::vector<http_exchange::header> headers;
  if (!settings_.secret.empty())
    headers.emplace_back(hook_signature_header, hook_signature(settings_.secret, body));
  pending_.push_back(std::make_shared<pending>(*this, std::move(done)));
  pending& p = *pending_.back();
  p.self = std::prev(pending_.end());
  p.arm_in(settings_.timeout);
  // The answer counts only while `p` still waits (not timed out, the gate not destroyed).
  p.exchange = http_exchange::post(
      io_, settings_.url, settings_.tls, std::move(body), std::move(headers), max_answer_body,
      [this, waiting = std::weak_ptr<pending>(pending_.back())](http_answer a) {
        const auto still = waiting.lock();
        if (!still) return;
        pending* raw = still.get();
        connect_verdict v;
        if (a.status == 200) {
          auto answer = parse_connect_answer(a.body);
          if (answer) {
            v = {connect_verdict::kind::admit, std::move(*answer.value)};
          } else {
            log_warn("connect hook: bad answer from {}: {}", settings_.url.text, answer.error);
            v.what = connect_verdict::kind::bad_answer;
          }
        } else if (a.status == 403) {
          v.what = connect_verdict::kind::refuse;
        } else if (a.status == 0 || a.status >= 500) {
          log_warn("connect hook: POST {} {}", settings_.url.text,
                   a.status ? fmt::format("answered {}", a.status) : a.failure);
          v.what = a.failure.starts_with("answer body over") ? connect_verdict::kind::bad_answer
                                                             : connect_verdict::kind::unavailable;
        } else {
          log_warn("connect hook: bad answer from {}: status {}", settings_.url.text, a.status);
          v.what = connect_verdict::kind::bad_answer;
        }
        settle(*raw, std::move(v));
      },
      pool_);
}

void connect_gate::settle(pending& p, connect_verdict v) {
  p.disarm();  // `p` may outlive this: an answer being read holds it
  switch (v.what) {
    case connect_verdict::kind::admit:
      ++counters_.admitted;
      break;
    case connect_verdict::kind::refuse:
      ++counters_.refused;
      break;
    case connect_verdict::kind::unavailable:
      ++counters_.unavailable;
      break;
    case connect_verdict::kind::bad_answer:
      ++counters_.bad_answers;
      break;
    case connect_verdict::kind::overloaded:  // never pending: counted in ask()
      break;
  }
  if (settings_.cap) settings_.cap->release();
  auto done = std::move(p.done_);
  if (p.exchange) p.exchange->cancel();  // after a timeout; harmless once answered
  pending_.erase(p.self);                // p lives on only while its answer callback runs
  done(std::move(v));
}

}  // namespace ringcast
