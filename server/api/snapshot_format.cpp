#include "api/snapshot_format.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "generated/version.hpp"

namespace ringcast {
namespace {

namespace json = boost::json;

// Adds each of `fields` of `from` into `into`.
template <class Counters, std::size_t N>
void add_fields(Counters& into, const Counters& from, std::uint64_t Counters::*const (&fields)[N]) {
  for (const auto field : fields)
    into.*field += from.*field;
}

constexpr std::uint64_t timing_wheel::counters::*wheel_fields[] = {
    &timing_wheel::counters::scheduled, &timing_wheel::counters::moved,
    &timing_wheel::counters::cancelled, &timing_wheel::counters::fired,
    &timing_wheel::counters::cascaded};
constexpr std::uint64_t hook_counters::*hook_fields[] = {
    &hook_counters::sent,   &hook_counters::batches, &hook_counters::retried,
    &hook_counters::failed, &hook_counters::dropped, &hook_counters::queued};
constexpr std::uint64_t connect_hook_counters::*connect_hook_fields[] = {
    &connect_hook_counters::admitted, &connect_hook_counters::refused,
    &connect_hook_counters::unavailable, &connect_hook_counters::bad_answers,
    &connect_hook_counters::overloaded};

// Every loop's snapshot combined once, for both outputs: counts summed; the tick the most
// advanced loop's; paced_in_flight and sticky_in_force the largest (every loop paces and holds
// every message, each for its own sessions); the backend up if every loop's last POST was.
loop_snapshot totals_of(const server_snapshot& s) {
  loop_snapshot t;
  for (const auto& l : s.loops) {
    for (const auto& f : loop_stat_fields)
      t.stats.*f.member += l.stats.*f.member;
    t.sessions += l.sessions;
    t.connected += l.connected;
    t.armed += l.armed;
    t.tick = std::max(t.tick, l.tick);
    add_fields(t.wheel, l.wheel, wheel_fields);
    t.paced_in_flight = std::max(t.paced_in_flight, l.paced_in_flight);
    t.sticky_in_force = std::max(t.sticky_in_force, l.sticky_in_force);
    add_fields(t.hooks, l.hooks, hook_fields);
    t.hooks.backend_up = t.hooks.backend_up && l.hooks.backend_up;
    add_fields(t.connect_hook, l.connect_hook, connect_hook_fields);
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
  const loop_snapshot all = totals_of(s);
  const loop_stats& t = all.stats;
  const timing_wheel::counters& w = all.wheel;
  json::object expirations;
  for_each_expiration(t, [&](const char* name, std::uint64_t v) { expirations[name] = v; });
  const std::size_t slots = s.loops.empty() ? 0 : s.loops[0].level0.size();
  json::object out{
      {"node", {{"address", s.address}, {"id", s.node_id}}},
      {"uptime_ms", s.uptime.count()},
      {"version", project_version},
      {"upgrades", s.upgrades},
      {"upgrade_reconnects", s.upgrade_reconnects},
      {"threads", s.loops.size()},
      {"connections",
       {{"ws", t.ws}, {"sse", t.sse}, {"poll", t.poll}, {"total", s.open_connections}}},
      {"sessions",
       {{"total", all.sessions},
        {"connected", all.connected},
        {"handed", t.connects_handed},
        {"refused",
         {{"max_sessions", t.sessions_refused_total},
          {"max_sessions_per_user", t.sessions_refused_user}}}}},
      {"messages",
       {{"published", s.published},
        {"delivered", t.delivered},
        {"paced_delivered", t.paced_delivered},
        {"paced_in_flight", all.paced_in_flight},
        {"acked", t.acked},
        {"acks_refused", t.acks_refused},
        {"expired", t.messages_expired},
        {"expired_notices", t.expired_notices},
        {"taken_down", t.taken_down},
        {"sticky_in_force", all.sticky_in_force},
        {"sticky_refused", s.sticky_refused},
        {"last_id", s.last_id},
        {"scheduled", s.scheduled}}},
      {"expirations", std::move(expirations)},
      {"refused", {{"origin", t.refused_origin}, {"host", t.refused_host}}},
      {"sessions_reused", t.sessions_reused},
      {"moves", {{"reconnect", t.moves_reconnect}, {"activity", t.moves_activity}}},
      {"compression",
       {{"bytes_written", t.bytes_written},
        {"messages_compressed", t.messages_compressed},
        {"compressed_sent", t.compressed_sent},
        {"bytes_saved", t.compression_saved}}},
      {"wheel",
       {{"tick", all.tick},
        {"tick_ms", s.tick.count()},
        {"slots", slots},
        {"levels", s.loops.empty() ? 0 : s.loops[0].levels},
        {"armed", all.armed},
        {"occupancy", json::array{summed_occupancy(s, false), summed_occupancy(s, true)}},
        {"counters",
         {{"scheduled", w.scheduled},
          {"moved", w.moved},
          {"cancelled", w.cancelled},
          {"fired", w.fired},
          {"cascaded", w.cascaded}}}}}};
  if (s.hooks) {
    const hook_counters& h = all.hooks;
    out["hooks"] = {{"sent", h.sent},
                    {"batches", h.batches},
                    {"retried", h.retried},
                    {"failed", h.failed},
                    {"dropped", h.dropped},
                    {"queued", h.queued},
                    {"backend_up", h.backend_up}};
  }
  if (s.connect_hook) {
    const connect_hook_counters& c = all.connect_hook;
    out["connect_hook"] = {{"admitted", c.admitted},
                           {"refused", c.refused},
                           {"unavailable", c.unavailable},
                           {"bad_answers", c.bad_answers},
                           {"overloaded", c.overloaded}};
  }
  out["client_addresses"] = {{"tracked", s.client_addresses},
                             {"refused_connections", s.refused_per_ip_connections},
                             {"refused_rate", s.refused_per_ip_rate}};
  if (s.clustered) {
    out["redis"] = {{"up", s.redis_up}, {"reconnects", s.redis_reconnects}};
  }
  return json::serialize(out);
}

std::string prometheus_text(const server_snapshot& s) {
  const loop_snapshot all = totals_of(s);
  const loop_stats& t = all.stats;
  std::string out;
  auto family = [&](std::string_view name, std::string_view type, std::string_view help) {
    out += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
  };
  auto sample = [&](std::string_view name, auto value, std::string_view labels = {}) {
    out += fmt::format("{}{} {}\n", name, labels, value);
  };
  // A family of one unlabelled sample.
  auto metric = [&](std::string_view name, std::string_view type, std::string_view help,
                    auto value) {
    family(name, type, help);
    sample(name, value);
  };
  metric("ringcast_connections", "gauge", "Open TCP connections.", s.open_connections);
  family("ringcast_streams", "gauge", "Live client streams by transport (poll: held polls).");
  sample("ringcast_streams", t.ws, R"({transport="ws"})");
  sample("ringcast_streams", t.sse, R"({transport="sse"})");
  sample("ringcast_streams", t.poll, R"({transport="poll"})");
  metric("ringcast_sessions", "gauge", "Sessions, connected or waiting out their TTL.",
         all.sessions);
  family("ringcast_sessions_refused_total", "counter",
         "Connects refused for want of a session: --max-sessions (503), or "
         "--max-sessions-per-user with every session of the user live (429).");
  sample("ringcast_sessions_refused_total", t.sessions_refused_total, R"({limit="max_sessions"})");
  sample("ringcast_sessions_refused_total", t.sessions_refused_user,
         R"({limit="max_sessions_per_user"})");
  metric("ringcast_messages_published_total", "counter", "Messages published.", s.published);
  metric("ringcast_messages_delivered_total", "counter", "Messages queued to clients.",
         t.delivered);
  metric("ringcast_paced_in_flight", "gauge",
         "Paced publishes (spread) whose window is still open: some turns still to come.",
         all.paced_in_flight);
  metric("ringcast_paced_delivered_total", "counter",
         "Messages queued to clients at their turn of a paced publish (part of delivered).",
         t.paced_delivered);
  metric("ringcast_scheduled", "gauge", "Scheduled publishes waiting on this node.", s.scheduled);
  metric("ringcast_messages_acked_total", "counter", "Client acks of messages in history.",
         t.acked);
  metric("ringcast_acks_refused_total", "counter",
         "Client acks of messages in history that were never sent to that session.",
         t.acks_refused);
  metric("ringcast_messages_expired_total", "counter", "Messages whose ttl passed.",
         t.messages_expired);
  metric("ringcast_expired_notices_total", "counter", "Expired notices queued to clients.",
         t.expired_notices);
  metric("ringcast_messages_taken_down_total", "counter",
         "Messages expired at once by DELETE /admin/messages/<id>.", t.taken_down);
  metric("ringcast_sticky_in_force", "gauge",
         "Sticky messages in force: sent to every client that connects without since.",
         all.sticky_in_force);
  metric("ringcast_sticky_refused_total", "counter",
         "Sticky publishes refused because --max-sticky were in force.", s.sticky_refused);
  family("ringcast_expirations_total", "counter", "Connections or sessions ended, by reason.");
  for_each_expiration(t, [&](const char* reason, std::uint64_t v) {
    sample("ringcast_expirations_total", v, fmt::format(R"({{reason="{}"}})", reason));
  });
  metric("ringcast_sessions_reused_total", "counter",
         "Connects that found their session within its TTL.", t.sessions_reused);
  metric("ringcast_connects_handed_total", "counter",
         "Connects read on one event loop and handed to the one holding their user's sessions.",
         t.connects_handed);
  metric("ringcast_client_errors_total", "counter", "Malformed client messages.", t.client_errors);
  metric("ringcast_bytes_written_total", "counter",
         "Bytes written to clients (WebSocket, SSE, long-poll and other HTTP replies), as on the "
         "wire before TLS.",
         t.bytes_written);
  metric("ringcast_messages_compressed_total", "counter",
         "Messages compressed, once per node for each form (WebSocket frame, SSE gzip piece, "
         "long-poll reply).",
         t.messages_compressed);
  metric("ringcast_compressed_sent_total", "counter",
         "Messages sent compressed (WebSocket permessage-deflate, SSE and long-poll gzip).",
         t.compressed_sent);
  metric("ringcast_compression_saved_bytes_total", "counter",
         "Bytes not written thanks to compression (plain frame minus compressed frame, per "
         "delivery).",
         t.compression_saved);
  family("ringcast_refused_total", "counter",
         "Requests refused by the browser policies: origin (a connect from a page of another site, "
         "403), host (a Host outside --allowed-hosts, 421).");
  sample("ringcast_refused_total", t.refused_origin, R"({reason="origin"})");
  sample("ringcast_refused_total", t.refused_host, R"({reason="host"})");
  metric("ringcast_client_addresses", "gauge",
         "Client addresses tracked for the per-address limits.", s.client_addresses);
  family(
      "ringcast_client_address_refused_total", "counter",
      "Connections closed at accept (or proxied requests refused) over --max-connections-per-ip, "
      "and connects refused over --connect-rate-per-ip.");
  sample("ringcast_client_address_refused_total", s.refused_per_ip_connections,
         R"({limit="connections"})");
  sample("ringcast_client_address_refused_total", s.refused_per_ip_rate, R"({limit="rate"})");
  metric("ringcast_wheel_armed", "gauge", "Timers armed in the timing wheels.", all.armed);
  metric("ringcast_wheel_moves_total", "counter", "Timer moves (reschedules) in the wheels.",
         all.wheel.moved);
  metric("ringcast_wheel_fired_total", "counter", "Timers fired by the wheels.", all.wheel.fired);
  if (s.clustered) {
    metric("ringcast_redis_up", "gauge", "1 when this node's Redis connections are up.",
           s.redis_up ? 1 : 0);
    metric("ringcast_redis_reconnects_total", "counter", "Redis connections lost and retried.",
           s.redis_reconnects);
  }
  if (s.hooks) {
    const hook_counters& h = all.hooks;
    metric("ringcast_hook_events_sent_total", "counter", "Hook events the backend accepted.",
           h.sent);
    metric("ringcast_hook_retries_total", "counter", "Hook POSTs repeating a failed one.",
           h.retried);
    metric("ringcast_hook_failures_total", "counter",
           "Hook POSTs answered non-2xx or not within --hook-timeout.", h.failed);
    metric("ringcast_hook_events_dropped_total", "counter",
           "Hook events dropped, oldest first, beyond --hook-queue.", h.dropped);
    metric("ringcast_hook_queue", "gauge", "Hook events waiting, batches in flight included.",
           h.queued);
    metric("ringcast_hook_backend_up", "gauge",
           "1 when the last hook POST of every loop was accepted.", h.backend_up ? 1 : 0);
  }
  if (s.pusher_webhooks) {
    const hook_counters& h = *s.pusher_webhooks;
    metric("ringcast_pusher_webhook_events_sent_total", "counter",
           "Pusher webhook events the URLs accepted.", h.sent);
    metric("ringcast_pusher_webhook_retries_total", "counter",
           "Pusher webhook POSTs repeating a failed one.", h.retried);
    metric("ringcast_pusher_webhook_failures_total", "counter",
           "Pusher webhook POSTs answered non-2xx or not within --hook-timeout.", h.failed);
    metric("ringcast_pusher_webhook_events_dropped_total", "counter",
           "Pusher webhook events dropped, oldest first, beyond --hook-queue per URL.", h.dropped);
    metric("ringcast_pusher_webhook_queue", "gauge",
           "Pusher webhook events waiting, batches in flight included.", h.queued);
    metric("ringcast_pusher_webhook_up", "gauge",
           "1 when the last Pusher webhook POST to every URL was accepted.", h.backend_up ? 1 : 0);
  }
  if (s.connect_hook) {
    const connect_hook_counters& c = all.connect_hook;
    family("ringcast_connect_hook_total", "counter",
           "Connects put to the connect hook, by its verdict (unavailable: no answer in time or a "
           "5xx; bad_answer: refused, the answer made no sense; overloaded: refused unasked, "
           "--connect-hook-concurrency in flight).");
    sample("ringcast_connect_hook_total", c.admitted, R"({outcome="admitted"})");
    sample("ringcast_connect_hook_total", c.refused, R"({outcome="refused"})");
    sample("ringcast_connect_hook_total", c.unavailable, R"({outcome="unavailable"})");
    sample("ringcast_connect_hook_total", c.bad_answers, R"({outcome="bad_answer"})");
    sample("ringcast_connect_hook_total", c.overloaded, R"({outcome="overloaded"})");
  }
  metric("ringcast_uptime_seconds", "gauge", "Seconds since start.",
         static_cast<double>(s.uptime.count()) / 1000.0);
  family("ringcast_build_info", "gauge", "The running binary's version (always 1).");
  sample("ringcast_build_info", 1, fmt::format(R"({{version="{}"}})", project_version));
  metric("ringcast_upgrades_total", "counter",
         "Upgrades in place (SIGUSR2) this process has been through.", s.upgrades);
  metric("ringcast_upgrade_reconnects_total", "counter",
         "Connections over native TLS told to reconnect by an upgrade in place.",
         s.upgrade_reconnects);
  return out;
}

}  // namespace ringcast
