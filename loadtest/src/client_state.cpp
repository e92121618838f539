#include "client_state.hpp"

#include <time.h>

#include <algorithm>
#include <boost/json.hpp>

namespace ringcast::load {

namespace json = boost::json;

std::int64_t realtime_us() {
  timespec ts{};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
}

namespace {

std::string text_of(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_string() ? std::string(v->as_string()) : std::string("unknown");
}

std::optional<std::uint64_t> number_of(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  if (!v) return std::nullopt;
  if (v->is_uint64()) return v->as_uint64();
  if (v->is_int64() && v->as_int64() >= 0) return static_cast<std::uint64_t>(v->as_int64());
  return std::nullopt;
}

bool flag_of(const json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v && v->is_bool() && v->as_bool();
}

}  // namespace

void client_state::set_base(std::uint64_t last_id) {
  ids_.set_base(last_id);
  // Resume from the hello's id only when nothing was seen yet: a resumed hello may announce an id
  // whose replay has not arrived yet, and resuming from it would skip that replay.
  if (!last_id_) last_id_ = last_id;
}

void client_state::on_message(const json::object& m, std::int64_t now_us) {
  const auto id = number_of(m, "id");
  if (!id) {
    ++result_.errors["bad_envelope"], ++live_.errors;
    return;
  }
  const auto* data = m.if_contains("data");
  deliver(*id, data && data->is_object() ? &data->as_object() : nullptr, now_us,
          m.contains("spread_ms"));
}

void client_state::nchan_connected(bool before_publishing) {
  if (before_publishing && !ids_.has_base()) set_base(0);
}

void client_state::on_raw_message(std::string_view body, std::int64_t now_us) {
  boost::system::error_code ec;
  const auto value = json::parse(body, ec);
  const auto* obj = !ec ? value.if_object() : nullptr;
  const auto seq = obj ? number_of(*obj, "seq") : std::nullopt;
  if (!seq || !number_of(*obj, "t")) {
    // Not this run's publisher: no id to account it by.
    ++result_.foreign;
    return;
  }
  deliver(*seq + 1, obj, now_us);
}

void client_state::deliver(std::uint64_t id, const json::object* stamp, std::int64_t now_us,
                           bool paced) {
  if (!ids_.has_base()) {
    // Long-poll has no hello: the first reply marks where this client's stream begins.
    set_base(id - 1);
  }
  if (ids_.record(id) == id_tracker::outcome::duplicate) return;  // booked by the tracker
  if (last_id_ && id <= *last_id_ && !paced) {
    // Not a duplicate yet not after the last id: it was skipped earlier and came late. A paced
    // message (docs/protocol.md, "Paced publish") may come after higher ids by design.
    ++result_.errors["out_of_order"], ++live_.errors;
  }
  last_id_ = std::max(last_id_.value_or(0), id);
  ++live_.messages;

  const auto t = stamp ? number_of(*stamp, "t") : std::nullopt;
  const auto seq = stamp ? number_of(*stamp, "seq") : std::nullopt;
  if (!t || !seq) {
    ++result_.foreign;
    return;
  }
  if (last_arrival_us_ && now_us > *last_arrival_us_) {
    result_.longest_gap_us =
        std::max(result_.longest_gap_us, static_cast<std::uint64_t>(now_us - *last_arrival_us_));
  }
  last_arrival_us_ = now_us;
  const auto latency = static_cast<std::uint64_t>(std::max<std::int64_t>(0, now_us - *t));
  result_.arrivals.record(now_us - static_cast<std::int64_t>(*t));
  if (static_cast<std::int64_t>(*t) < connection_start_us_) {
    result_.replay_latency_us.record(latency);
    return;
  }
  result_.latency_us.record(latency);
  live_.interval_latency_us.record(latency);
  if (*seq >= result_.fanout_us.size()) result_.fanout_us.resize(*seq + 1, -1);
  auto& slot = result_.fanout_us[*seq];
  slot = std::max(slot, static_cast<std::int64_t>(latency));
}

reaction client_state::on_envelope(std::string_view text, std::int64_t now_us) {
  boost::system::error_code ec;
  auto value = json::parse(text, ec);
  if (ec || !value.is_object()) {
    ++result_.errors["bad_envelope"], ++live_.errors;
    return {};
  }
  const auto& o = value.as_object();
  const auto type = text_of(o, "type");
  if (type == "message") {
    on_message(o, now_us);
  } else if (type == "hello") {
    if (const auto last = number_of(o, "last_id")) set_base(*last);
    if (flag_of(o, "resumed")) ++result_.resumed;
    if (flag_of(o, "gap")) ++result_.gaps;
  } else if (type == "messages") {
    ++result_.polls;
    if (flag_of(o, "gap")) ++result_.gaps;
    if (const auto* list = o.if_contains("messages"); list && list->is_array()) {
      for (const auto& m : list->as_array()) {
        if (m.is_object()) on_message(m.as_object(), now_us);
      }
    }
    if (const auto last = number_of(o, "last_id"); last && !ids_.has_base()) set_base(*last);
  } else if (type == "reconnect") {
    const auto reason = text_of(o, "reason");
    ++result_.server_reconnects[reason];
    if (reason == "timeout") ++result_.polls;
    if (const auto last = number_of(o, "last_id"); last && !ids_.has_base()) set_base(*last);
    const auto retry = std::chrono::milliseconds{number_of(o, "retry_ms").value_or(0)};
    return {reaction::kind::reconnect, std::min(retry, max_retry_)};
  } else if (type == "close") {
    const auto reason = text_of(o, "reason");
    ++result_.server_closes[reason];
    // Replaced means another connection owns the session now; the others ask to come back later.
    if (reason == "replaced") return {reaction::kind::give_up, {}};
    return {reaction::kind::reconnect, std::min(std::chrono::milliseconds{1000}, max_retry_)};
  } else if (type == "error") {
    ++result_.errors["server_" + text_of(o, "code")], ++live_.errors;
  } else if (type != "pong") {
    ++result_.errors["unknown_envelope"], ++live_.errors;
  }
  return {};
}

}  // namespace ringcast::load
