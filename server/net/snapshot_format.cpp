#include "snapshot_format.hpp"

#include <fmt/format.h>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace ringcast {
namespace {

namespace json = boost::json;

// Loop counters summed field by field.
loop_stats total_of(const server_snapshot& s) {
  loop_stats t;
  for (const auto& l : s.loops) {
    for (const auto& f : loop_stat_fields)
      t.*f.member += l.stats.*f.member;
  }
  return t;
}

json::array summed_occupancy(const server_snapshot& s, bool level1) {
  std::vector<std::uint64_t> sum;
  for (const auto& l : s.loops) {
    const auto& slots = level1 ? l.level1 : l.level0;
    sum.resize(slots.size());
    for (std::size_t i = 0; i < slots.size(); ++i)
      sum[i] += slots[i];
  }
  return json::array(sum.begin(), sum.end());
}

// The expiration reasons, in the order both outputs list them.
template <class F>
void for_each_expiration(const loop_stats& t, F&& f) {
  for (const auto& field : loop_stat_fields) {
    if (field.expiration) f(field.name, t.*field.member);
  }
}

}  // namespace

std::string stats_json(const server_snapshot& s) {
  const loop_stats t = total_of(s);
  std::size_t sessions = 0, connected = 0, armed = 0;
  std::uint64_t tick = 0;
  timing_wheel::counters w;
  for (const auto& l : s.loops) {
    sessions += l.sessions;
    connected += l.connected;
    armed += l.armed;
    tick = std::max(tick, l.tick);
    w.scheduled += l.wheel.scheduled;
    w.moved += l.wheel.moved;
    w.cancelled += l.wheel.cancelled;
    w.fired += l.wheel.fired;
    w.cascaded += l.wheel.cascaded;
  }
  json::object expirations;
  for_each_expiration(t, [&](const char* name, std::uint64_t v) { expirations[name] = v; });
  const std::size_t slots = s.loops.empty() ? 0 : s.loops[0].level0.size();
  json::object out{
      {"node", {{"address", s.address}, {"id", s.node_id}}},
      {"uptime_ms", s.uptime.count()},
      {"threads", s.loops.size()},
      {"connections",
       {{"ws", t.ws}, {"sse", t.sse}, {"poll", t.poll}, {"total", s.open_connections}}},
      {"sessions", {{"total", sessions}, {"connected", connected}}},
      {"messages",
       {{"published", s.published},
        {"delivered", t.delivered},
        {"acked", t.acked},
        {"expired", t.messages_expired},
        {"expired_notices", t.expired_notices},
        {"last_id", s.last_id},
        {"scheduled", s.scheduled}}},
      {"expirations", std::move(expirations)},
      {"sessions_reused", t.sessions_reused},
      {"moves", {{"reconnect", t.moves_reconnect}, {"activity", t.moves_activity}}},
      {"wheel",
       {{"tick", tick},
        {"tick_ms", s.tick.count()},
        {"slots", slots},
        {"levels", s.loops.empty() ? 0 : s.loops[0].levels},
        {"armed", armed},
        {"occupancy", json::array{summed_occupancy(s, false), summed_occupancy(s, true)}},
        {"counters",
         {{"scheduled", w.scheduled},
          {"moved", w.moved},
          {"cancelled", w.cancelled},
          {"fired", w.fired},
          {"cascaded", w.cascaded}}}}}};
  if (s.clustered) {
    out["redis"] = {{"up", s.redis_up}, {"reconnects", s.redis_reconnects}};
  }
  return json::serialize(out);
}

std::string prometheus_text(const server_snapshot& s) {
  const loop_stats t = total_of(s);
  std::size_t sessions = 0, armed = 0;
  std::uint64_t moved = 0, fired = 0;
  for (const auto& l : s.loops) {
    sessions += l.sessions;
    armed += l.armed;
    moved += l.wheel.moved;
    fired += l.wheel.fired;
  }
  std::string out;
  auto family = [&](std::string_view name, std::string_view type, std::string_view help) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  };
  auto sample = [&](std::string_view name, auto value, std::string_view labels = {}) {
    out += fmt::format("{}{} {}\n", name, labels, value);
  };
  family("ringcast_connections", "gauge", "Open TCP connections.");
  sample("ringcast_connections", s.open_connections);
  family("ringcast_streams", "gauge", "Live client streams by transport (poll: held polls).");
  sample("ringcast_streams", t.ws, R"({transport="ws"})");
  sample("ringcast_streams", t.sse, R"({transport="sse"})");
  sample("ringcast_streams", t.poll, R"({transport="poll"})");
  family("ringcast_sessions", "gauge", "Sessions, connected or waiting out their TTL.");
  sample("ringcast_sessions", sessions);
  family("ringcast_messages_published_total", "counter", "Messages published.");
  sample("ringcast_messages_published_total", s.published);
  family("ringcast_messages_delivered_total", "counter", "Messages queued to clients.");
  sample("ringcast_messages_delivered_total", t.delivered);
  family("ringcast_scheduled", "gauge", "Scheduled publishes waiting on this node.");
  sample("ringcast_scheduled", s.scheduled);
  family("ringcast_messages_acked_total", "counter", "Client acks of messages in history.");
  sample("ringcast_messages_acked_total", t.acked);
  family("ringcast_messages_expired_total", "counter", "Messages whose ttl passed.");
  sample("ringcast_messages_expired_total", t.messages_expired);
  family("ringcast_expired_notices_total", "counter", "Expired notices queued to clients.");
  sample("ringcast_expired_notices_total", t.expired_notices);
  family("ringcast_expirations_total", "counter", "Connections or sessions ended, by reason.");
  for_each_expiration(t, [&](const char* reason, std::uint64_t v) {
    sample("ringcast_expirations_total", v, fmt::format(R"({{reason="{}"}})", reason));
  });
  family("ringcast_sessions_reused_total", "counter",
         "Connects that found their session within its TTL.");
  sample("ringcast_sessions_reused_total", t.sessions_reused);
  family("ringcast_client_errors_total", "counter", "Malformed client messages.");
  sample("ringcast_client_errors_total", t.client_errors);
  family("ringcast_wheel_armed", "gauge", "Timers armed in the timing wheels.");
  sample("ringcast_wheel_armed", armed);
  family("ringcast_wheel_moves_total", "counter", "Timer moves (reschedules) in the wheels.");
  sample("ringcast_wheel_moves_total", moved);
  family("ringcast_wheel_fired_total", "counter", "Timers fired by the wheels.");
  sample("ringcast_wheel_fired_total", fired);
  if (s.clustered) {
    family("ringcast_redis_up", "gauge", "1 when this node's Redis connections are up.");
    sample("ringcast_redis_up", s.redis_up ? 1 : 0);
    family("ringcast_redis_reconnects_total", "counter", "Redis connections lost and retried.");
    sample("ringcast_redis_reconnects_total", s.redis_reconnects);
  }
  family("ringcast_uptime_seconds", "gauge", "Seconds since start.");
  sample("ringcast_uptime_seconds", static_cast<double>(s.uptime.count()) / 1000.0);
  return out;
}

}  // namespace ringcast
