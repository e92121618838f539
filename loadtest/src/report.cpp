#include "report.hpp"

#include <cmath>

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

namespace ringcast::load {

namespace json = boost::json;

namespace {

double ms(std::uint64_t us) {
  return static_cast<double>(us) / 1000.0;
}

// Memory that grew from `before` to `after` (none if it shrank), in KiB.
std::uint64_t grown_kb(std::uint64_t before, std::uint64_t after) {
  return after > before ? after - before : 0;
}

// KiB spread over `connections`, in bytes each.
double bytes_per(std::uint64_t kb, std::uint64_t connections) {
  return connections ? static_cast<double>(kb) * 1024.0 / static_cast<double>(connections) : 0.0;
}

json::object latency(const histogram& h) {
  return {{"count", h.count()},          {"p50", ms(h.percentile(50))},
          {"p90", ms(h.percentile(90))}, {"p99", ms(h.percentile(99))},
          {"max", ms(h.max())},          {"mean", h.mean() / 1000.0}};
}

// The arrival histogram against its window: the spread, or one second for immediate publishes.
json::object arrivals(const arrival_bins& bins, std::chrono::milliseconds spread) {
  const auto window = spread.count() > 0 ? spread : std::chrono::milliseconds{1000};
  const auto s = summarize(bins, window);
  return {{"window_s", window.count() / 1000.0}, {"counts", bins.to_json()},
          {"deliveries", bins.total()},          {"in_window", s.in_window},
          {"after_window", s.after_window},      {"mean_per_s", s.mean_per_s},
          {"worst_per_s", s.worst_per_s},        {"worst_second", s.worst_second},
          {"worst_to_mean", s.worst_to_mean}};
}

json::array timeline(const std::vector<run_facts::timed_sample>& samples) {
  json::array out;
  for (const auto& [t, s] : samples)
    out.push_back(json::object{{"t_s", t},
                               {"rss_kb", s.rss_kb},
                               {"pss_kb", s.pss_kb},
                               {"cpu_s", s.cpu_s},
                               {"cpu_sched_s", s.cpu_sched_s}});
  return out;
}

json::object counts(const std::map<std::string, std::uint64_t>& m) {
  json::object o;
  for (const auto& [k, n] : m)
    o[k] = n;
  return o;
}

}  // namespace

json::object make_report(const options& opts, const client_result& r, const run_facts& f) {
  json::object mix;
  for (const auto t : all_transports) {
    mix[name_of(t)] = opts.mix.weight[static_cast<int>(t)];
  }
  json::array targets;
  for (const auto& t : opts.targets)
    targets.push_back(json::string(t.text()));

  // A broadcast has reached every client when its last live delivery has: one sample per seq.
  histogram fanout;
  for (const auto us : r.fanout_us) {
    if (us >= 0) fanout.record(static_cast<std::uint64_t>(us));
  }

  json::object out;
  out["config"] = {{"clients", opts.clients},
                   {"mix", mix},
                   {"rate", opts.rate},
                   {"churn_pct", opts.churn_pct},
                   {"idle_pct", opts.idle_pct},
                   {"publish_rate", opts.publish_rate},
                   {"spread_s", opts.spread.count() / 1000.0},
                   {"duration_s", opts.duration.count() / 1000.0},
                   {"procs", opts.procs},
                   {"targets", targets},
                   {"ws_deflate", opts.ws_deflate},
                   {"arrival", opts.kernel_arrival ? "kernel" : "read"},
                   {"tls", !opts.tls             ? "off"
                           : opts.tls_ca.empty() ? "unverified"
                                                 : "verified"}};
  out["elapsed_s"] = f.elapsed_s;
  out["connect_ms"] = latency(r.connect_us);
  out["upgrade_ms"] = latency(r.upgrade_us);
  out["latency_ms"] = latency(r.latency_us);
  out["replay_latency_ms"] = latency(r.replay_latency_us);
  out["longest_gap_ms"] = static_cast<double>(r.longest_gap_us) / 1000.0;
  out["broadcast_reach_ms"] = {
      {"messages", fanout.count()}, {"p50", ms(fanout.percentile(50))}, {"max", ms(fanout.max())}};
  out["arrivals"] = arrivals(r.arrivals, opts.spread);
  // Egress as the clients' kernels saw it, per message read (docs/loadtest.md).
  out["ws_wire"] = {
      {"bytes", r.ws_socket_bytes},
      {"messages", r.ws_socket_messages},
      {"bytes_per_delivery", r.ws_socket_messages == 0
                                 ? json::value(nullptr)
                                 : json::value(static_cast<double>(r.ws_socket_bytes) /
                                               static_cast<double>(r.ws_socket_messages))}};
  out["messages"] = {{"published", f.published}, {"publish_attempts", f.publish_attempts},
                     {"expected", r.expected},   {"received", r.received},
                     {"lost", r.lost},           {"duplicates", r.duplicates},
                     {"foreign", r.foreign}};
  json::object conns{{"peak_connected", f.peak_connected},
                     {"connects", r.connects},
                     {"reconnects", r.reconnects},
                     {"churned", r.churned},
                     {"resumed_hellos", r.resumed},
                     {"gaps", r.gaps},
                     {"polls", r.polls}};
  json::object expirations;
  if (f.stats_start && f.stats_end) {
    conns["sessions_reused"] = f.stats_end->sessions_reused - f.stats_start->sessions_reused;
    for (const auto& [k, n] : f.stats_end->expirations) {
      const auto it = f.stats_start->expirations.find(k);
      expirations[k] = n - (it == f.stats_start->expirations.end() ? 0 : it->second);
    }
  } else {
    conns["sessions_reused"] = nullptr;
  }
  out["connections"] = std::move(conns);
  out["server_reconnects"] = counts(r.server_reconnects);
  out["server_closes"] = counts(r.server_closes);
  out["expirations"] = std::move(expirations);
  if (!f.stats_error.empty()) out["stats_error"] = f.stats_error;

  json::object server;
  if (f.rss_base && f.rss_peak) {
    server["rss_base_kb"] = f.rss_base->rss_kb;
    server["rss_peak_kb"] = f.rss_peak->rss_kb;
    server["rss_per_connection_bytes"] =
        bytes_per(grown_kb(f.rss_base->rss_kb, f.rss_peak->rss_kb), f.peak_connected);
  }
  if (f.rss_base && f.rss_connected) {
    // Before the first publish: what a connected client costs with nothing in flight.
    server["rss_connected_kb"] = f.rss_connected->rss_kb;
    server["connected_at_publish"] = f.connected_at_publish;
    server["rss_per_idle_connection_bytes"] =
        bytes_per(grown_kb(f.rss_base->rss_kb, f.rss_connected->rss_kb), f.connected_at_publish);
    server["pss_base_kb"] = f.rss_base->pss_kb;
    server["pss_connected_kb"] = f.rss_connected->pss_kb;
    server["pss_per_idle_connection_bytes"] =
        bytes_per(grown_kb(f.rss_base->pss_kb, f.rss_connected->pss_kb), f.connected_at_publish);
  }
  if (f.cpu_start && f.cpu_end) {
    const double cpu = f.cpu_end->cpu_s - f.cpu_start->cpu_s;
    server["cpu_s"] = cpu;
    // Per delivery: the server's unit of work is one message to one client.
    server["cpu_us_per_delivery"] =
        r.latency_us.count() + r.replay_latency_us.count() + r.foreign
            ? cpu * 1e6 /
                  static_cast<double>(r.latency_us.count() + r.replay_latency_us.count() +
                                      r.foreign)
            : 0.0;
    server["cpu_us_per_publish"] = f.published ? cpu * 1e6 / f.published : 0.0;
    // A --server-pid that is not the server under test (pidof with several servers running)
    // shows no CPU while messages were delivered: say so instead of reporting 0 per delivery.
    if (cpu <= 0.0 && r.latency_us.count() > 0)
      server["warning"] =
          "the --server-pid processes used no CPU during the run: are they the servers under test? "
          "(several pids: --server-pid 1,2,3)";
  }
  out["server"] = std::move(server);
  out["server_timeline"] = timeline(f.server_timeline);

  auto errors = r.errors;
  for (const auto& [k, n] : f.publish_errors)
    errors[k] += n;
  out["errors"] = counts(errors);
  out["nofile_limit"] = f.nofile_limit;
  return out;
}

std::string human_summary(const json::object& rep) {
  const auto num = [&](std::string_view a, std::string_view b) {
    return rep.at(a).as_object().at(b);
  };
  const auto& lat = rep.at("latency_ms").as_object();
  const auto& msgs = rep.at("messages").as_object();
  const auto& conns = rep.at("connections").as_object();
  std::string s;
  const auto* tls = rep.at("config").as_object().if_contains("tls");
  const bool secure = tls && tls->is_string() && tls->as_string() != "off";
  s += fmt::format("ringcast-load: {} clients, {:.1f} s{}\n", num("config", "clients").as_uint64(),
                   rep.at("elapsed_s").as_double(),
                   secure ? fmt::format(", TLS ({})", std::string_view(tls->as_string())) : "");
  s += fmt::format("  connect     p50 {:.2f} ms  p99 {:.2f} ms\n",
                   num("connect_ms", "p50").as_double(), num("connect_ms", "p99").as_double());
  // Only WebSockets read a 101: a run of sse and poll alone has none.
  if (num("upgrade_ms", "count").as_uint64() > 0) {
    s += fmt::format("  101 read    p50 {:.2f} ms  p99 {:.2f} ms\n",
                     num("upgrade_ms", "p50").as_double(), num("upgrade_ms", "p99").as_double());
  }
  s += fmt::format(
      "  latency     p50 {:.2f}  p90 {:.2f}  p99 {:.2f}  max {:.2f} ms ({} deliveries)\n",
      lat.at("p50").as_double(), lat.at("p90").as_double(), lat.at("p99").as_double(),
      lat.at("max").as_double(), lat.at("count").as_uint64());
  s += fmt::format("  longest gap {:.2f} ms between two messages at one client\n",
                   rep.at("longest_gap_ms").as_double());
  s += fmt::format("  reach all   p50 {:.2f}  max {:.2f} ms over {} broadcasts\n",
                   num("broadcast_reach_ms", "p50").as_double(),
                   num("broadcast_reach_ms", "max").as_double(),
                   num("broadcast_reach_ms", "messages").as_uint64());
  const auto& arr = rep.at("arrivals").as_object();
  if (num("config", "spread_s").to_number<double>() > 0) {
    s += fmt::format(
        "  arrivals    {} s window: mean {:.1f}/s  worst {}/s (second {}) = {:.2f} x mean  "
        "after the window {}\n",
        arr.at("window_s").as_double(), arr.at("mean_per_s").as_double(),
        arr.at("worst_per_s").as_uint64(), arr.at("worst_second").as_uint64(),
        arr.at("worst_to_mean").as_double(), arr.at("after_window").as_uint64());
  } else {
    // Not paced: a rate over a one-second window would only restate the deliveries.
    s += fmt::format("  arrivals    not paced: {} within a second of their publish, {} later\n",
                     arr.at("in_window").as_uint64(), arr.at("after_window").as_uint64());
  }
  s += fmt::format("  per second  {}\n", plain_json(arr.at("counts")));
  s += fmt::format("  messages    published {}  expected {}  received {}  lost {}  duplicate {}\n",
                   msgs.at("published").as_uint64(), msgs.at("expected").as_uint64(),
                   msgs.at("received").as_uint64(), msgs.at("lost").as_uint64(),
                   msgs.at("duplicates").as_uint64());
  const auto& wire = rep.at("ws_wire").as_object();
  s += fmt::format("  ws wire     {} bytes received for {} messages: {} per delivery{}\n",
                   wire.at("bytes").as_uint64(), wire.at("messages").as_uint64(),
                   plain_json(wire.at("bytes_per_delivery")),
                   num("config", "ws_deflate").as_bool() ? " (permessage-deflate offered)" : "");
  s += fmt::format("  connections peak {}  reconnects {}  churned {}  sessions reused {}\n",
                   conns.at("peak_connected").as_uint64(), conns.at("reconnects").as_uint64(),
                   conns.at("churned").as_uint64(), json::serialize(conns.at("sessions_reused")));
  s += fmt::format("  expirations {}\n", plain_json(rep.at("expirations")));
  s += fmt::format("  server      {}\n", plain_json(rep.at("server")));
  s += fmt::format("  errors      {}\n", plain_json(rep.at("errors")));
  return s;
}

std::string plain_json(const json::value& v) {
  switch (v.kind()) {
    case json::kind::double_: {
      const double d = v.get_double();
      if (!std::isfinite(d) || std::abs(d) >= 1e15) return json::serialize(v);
      // Rounded to the 15 significant digits a double holds: a difference of two readings
      // (0.29 - 0.25) is 0.04, not 0.040000000000000036. Then the shortest form of that.
      return fmt::format("{}", std::stod(fmt::format("{:.15g}", d)));
    }
    case json::kind::array: {
      std::string out = "[";
      // Appended piece by piece: `"," + plain_json(..)` makes GCC 12 at -O3 warn
      // (-Wstringop-overflow, a false positive).
      for (const auto& item : v.get_array()) {
        if (out.size() > 1) out += ',';
        out += plain_json(item);
      }
      return out + "]";
    }
    case json::kind::object: {
      std::string out = "{";
      for (const auto& [key, item] : v.get_object()) {
        if (out.size() > 1) out += ',';
        out += json::serialize(json::string(key));
        out += ':';
        out += plain_json(item);
      }
      return out + "}";
    }
    default:
      return json::serialize(v);
  }
}

}  // namespace ringcast::load
