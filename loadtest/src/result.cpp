#include "result.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <utility>

namespace ringcast::load {

namespace json = boost::json;

void add_counts(std::map<std::string, std::uint64_t>& into,
                const std::map<std::string, std::uint64_t>& from) {
  for (const auto& [k, n] : from)
    into[k] += n;
}

namespace {

json::object counts_to_json(const std::map<std::string, std::uint64_t>& m) {
  json::object o;
  for (const auto& [k, n] : m)
    o[k] = n;
  return o;
}

std::map<std::string, std::uint64_t> counts_from_json(const json::value& v) {
  std::map<std::string, std::uint64_t> m;
  for (const auto& [k, n] : v.as_object())
    m[std::string(k)] = n.to_number<std::uint64_t>();
  return m;
}

// The plain counters, listed once so that merge, to_json and from_json cannot drift apart.
using counter = std::uint64_t client_result::*;
constexpr std::pair<const char*, counter> counters[] = {
    {"clients", &client_result::clients},
    {"expected", &client_result::expected},
    {"received", &client_result::received},
    {"lost", &client_result::lost},
    {"duplicates", &client_result::duplicates},
    {"foreign", &client_result::foreign},
    {"connects", &client_result::connects},
    {"reconnects", &client_result::reconnects},
    {"churned", &client_result::churned},
    {"polls", &client_result::polls},
    {"resumed", &client_result::resumed},
    {"gaps", &client_result::gaps},
    {"ws_socket_bytes", &client_result::ws_socket_bytes},
    {"ws_socket_messages", &client_result::ws_socket_messages},
};

}  // namespace

void client_result::merge(const client_result& other) {
  for (const auto& [name, member] : counters)
    this->*member += other.*member;
  connect_us.merge(other.connect_us);
  upgrade_us.merge(other.upgrade_us);
  latency_us.merge(other.latency_us);
  replay_latency_us.merge(other.replay_latency_us);
  arrivals.merge(other.arrivals);
  if (other.fanout_us.size() > fanout_us.size()) fanout_us.resize(other.fanout_us.size(), -1);
  for (std::size_t s = 0; s < other.fanout_us.size(); ++s) {
    fanout_us[s] = std::max(fanout_us[s], other.fanout_us[s]);
  }
  longest_gap_us = std::max(longest_gap_us, other.longest_gap_us);
  add_counts(server_reconnects, other.server_reconnects);
  add_counts(server_closes, other.server_closes);
  add_counts(errors, other.errors);
}

json::value client_result::to_json() const {
  json::object o;
  for (const auto& [name, member] : counters)
    o[name] = this->*member;
  o["connect_us"] = connect_us.to_json();
  o["upgrade_us"] = upgrade_us.to_json();
  o["latency_us"] = latency_us.to_json();
  o["replay_latency_us"] = replay_latency_us.to_json();
  o["longest_gap_us"] = longest_gap_us;
  o["fanout_us"] = json::value_from(fanout_us);
  o["arrivals"] = arrivals.to_json();
  o["server_reconnects"] = counts_to_json(server_reconnects);
  o["server_closes"] = counts_to_json(server_closes);
  o["errors"] = counts_to_json(errors);
  return o;
}

client_result client_result::from_json(const json::value& v) {
  const auto& o = v.as_object();
  client_result r;
  for (const auto& [name, member] : counters)
    r.*member = o.at(name).to_number<std::uint64_t>();
  r.connect_us = histogram::from_json(o.at("connect_us"));
  r.upgrade_us = histogram::from_json(o.at("upgrade_us"));
  r.latency_us = histogram::from_json(o.at("latency_us"));
  r.replay_latency_us = histogram::from_json(o.at("replay_latency_us"));
  r.longest_gap_us = o.at("longest_gap_us").to_number<std::uint64_t>();
  r.fanout_us = json::value_to<std::vector<std::int64_t>>(o.at("fanout_us"));
  r.arrivals = arrival_bins::from_json(o.at("arrivals"));
  r.server_reconnects = counts_from_json(o.at("server_reconnects"));
  r.server_closes = counts_from_json(o.at("server_closes"));
  r.errors = counts_from_json(o.at("errors"));
  return r;
}

void progress::merge(const progress& other) {
  connected += other.connected;
  messages += other.messages;
  errors += other.errors;
  interval_latency_us.merge(other.interval_latency_us);
}

json::value progress::to_json() const {
  return json::object{{"connected", connected},
                      {"messages", messages},
                      {"errors", errors},
                      {"latency_us", interval_latency_us.to_json()}};
}

progress progress::from_json(const json::value& v) {
  const auto& o = v.as_object();
  progress p;
  p.connected = o.at("connected").to_number<std::uint64_t>();
  p.messages = o.at("messages").to_number<std::uint64_t>();
  p.errors = o.at("errors").to_number<std::uint64_t>();
  p.interval_latency_us = histogram::from_json(o.at("latency_us"));
  return p;
}

}  // namespace ringcast::load
