// parse_flags: the table of ringcast-load's flags, --help, and the checks across flags; each
// value is parsed in flag_values.cpp. Also what the options mean per client (transport, idle).
#include "flags.hpp"
#include "flag_values.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <boost/program_options.hpp>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "generated/version.hpp"
#include "protocol/flag_parser_error.hpp"
#include "tls/tls_context.hpp"

namespace po = boost::program_options;

namespace ringcast::load {

std::string_view name_of(transport t) {
  switch (t) {
    case transport::ws:
      return "ws";
    case transport::sse:
      return "sse";
    case transport::poll:
      return "poll";
  }
  return "?";
}

std::vector<transport> assign_transports(const transport_mix& mix, std::size_t n) {
  std::vector<transport> out;
  out.reserve(n);
  std::array<long, 3> current{0, 0, 0};
  const long total = mix.total();
  for (std::size_t i = 0; i < n; ++i) {
    int best = 0;
    for (int t = 0; t < 3; ++t) {
      current[t] += mix.weight[t];
      if (current[t] > current[best]) best = t;
    }
    current[best] -= total;
    out.push_back(all_transports[best]);
  }
  return out;
}

bool is_idle(std::size_t ws_ordinal, double idle_pct) {
  // Bresenham: the k-th client is idle when the running share of idle ones steps up at k.
  const auto before = std::floor(static_cast<double>(ws_ordinal) * idle_pct / 100.0);
  const auto after = std::floor(static_cast<double>(ws_ordinal + 1) * idle_pct / 100.0);
  return after > before;
}

std::optional<options> parse_flags(int argc, const char* const* argv, const char* env_token,
                                   std::string* help_out) {
  po::options_description desc("ringcast-load options", 100, 50);
  // Every value is taken as text and checked here: program_options would wrap "-5" into a huge
  // unsigned instead of refusing it.
  // Each value named in --help (Boost prints "arg" otherwise).
  auto value = [](const char* name) { return po::value<std::string>()->value_name(name); };
  desc.add_options()                                                                    //
      ("help,h", "show this text")                                                      //
      ("version", "print the version and exit")                                         //
      ("target", value("HOST:PORT"), "the server (default 127.0.0.1:8080)")             //
      ("targets", value("HOST:PORT,..."), "several nodes; clients spread round-robin")  //
      ("clients", value("N"), "number of clients (default 100)")                        //
      ("mix", value("ws=W,sse=W,poll=W"),
       "transport weights, e.g. ws=70,sse=20,poll=10 (default ws)")                            //
      ("rate", value("R"), "connects per second (default 500)")                                //
      ("churn", value("PERCENT"), "percent of clients per second that reconnect (default 0)")  //
      ("idle", value("PERCENT"), "percent of ws clients that never send (default 0)")          //
      ("ping-interval", value("DURATION"), "ws ping period of active clients (default 20s)")   //
      ("publish-rate", value("R"), "broadcasts per second (default 10)")                       //
      ("duration", value("DURATION"), "run time from start, warmup included (default 15s)")    //
      ("warmup", value("DURATION"), "time before publishing starts (default 2s)")              //
      ("settle", value("DURATION"), "wait for late messages after publishing (default 2s)")    //
      ("spread", value("DURATION"),
       "pace each publish over this window (\"spread\"; the run waits it out; default 0)")   //
      ("max-retry", value("DURATION"), "cap on a server's retry_ms (default 5s)")            //
      ("procs", value("K"), "worker processes (default 1)")                                  //
      ("admin-token", value("TOKEN"), "admin token (else RINGCAST_ADMIN_TOKEN)")             //
      ("server-pid", value("PID,..."), "server PID(s), to sample their summed RSS and CPU")  //
      ("server-kind", value("KIND"),
       "ringcast (default), nchan, or pusher (ringcast's Pusher door)")  //
      ("channel", value("NAME"),
       "the channel every client joins and every publish addresses (nchan, pusher: default "
       "broadcast; ringcast: default none, publishes are broadcasts)")  //
      ("pusher-key", value("KEY"), "pusher: the app key (/app/KEY)")    //
      ("tls",
       "connect with TLS (wss://, https://); the certificate is not verified without --tls-ca")  //
      ("tls-ca", value("FILE"),
       "PEM file to verify the server certificate with (implies --tls)")  //
      ("ws-deflate",
       "ws clients offer permessage-deflate (RFC 7692, no context takeover either way)")  //
      ("payload", value("FILE"),
       "a JSON object whose members every published message carries after its \"t\" and "
       "\"seq\" (realistic sizes and content)")  //
      ("arrival", value("read|kernel"),
       "when a message reached a client: when it read it (default), or the kernel's receive "
       "time of its bytes, the client processes then running at idle priority while the server "
       "fans out (the server's own time, as with clients on other machines; --mix ws, --procs 2 "
       "or more, not --tls)")  //
      ("expect-zero-loss",
       "exit 1 when a message was lost or duplicated, or nothing was measured (no client "
       "connected, no publish acknowledged, a publish refused)");

  po::variables_map vm;
  try {
    const auto parsed = po::command_line_parser(argc, argv).options(desc).run();
    // program_options passes stray words through silently: `--server-pid $(pidof ringcast)` with
    // several servers would measure the first pid and drop the rest.
    const auto stray = po::collect_unrecognized(parsed.options, po::include_positional);
    if (!stray.empty())
      throw flag_error(
          fmt::format("unexpected argument '{}' (several --server-pid values are "
                      "written with commas: --server-pid 1,2)",
                      stray.front()));
    po::store(parsed, vm);
  } catch (const po::error& e) {
    throw flag_error(ringcast::flag_parser_error(e, argc, argv));
  }
  if (vm.count("version")) {
    if (help_out) *help_out = fmt::format("ringcast-load {}\n", ringcast::project_version);
    return std::nullopt;
  }
  if (vm.count("help")) {
    std::ostringstream text;
    text << "usage: ringcast-load [options]\n" << desc;
    if (help_out) *help_out = text.str();
    return std::nullopt;
  }
  const auto text = [&](const char* name) -> std::optional<std::string> {
    if (!vm.count(name)) return std::nullopt;
    return vm[name].as<std::string>();
  };

  options o;
  if (env_token) o.admin_token = env_token;
  if (text("target") && text("targets")) throw flag_error("give --target or --targets, not both");
  if (auto v = text("target")) o.targets = {parse_target(*v)};
  if (auto v = text("targets")) o.targets = parse_targets(*v);
  if (auto v = text("clients")) o.clients = parse_whole<std::size_t>(*v, "--clients");
  if (o.clients == 0) throw flag_error("--clients: must be at least 1");
  if (auto v = text("mix")) o.mix = parse_mix(*v);
  if (auto v = text("rate")) o.rate = parse_number(*v, "--rate", 0.001, 1e6);
  if (auto v = text("churn")) o.churn_pct = parse_number(*v, "--churn", 0, 100);
  if (auto v = text("idle")) o.idle_pct = parse_number(*v, "--idle", 0, 100);
  if (auto v = text("ping-interval")) o.ping_interval = duration_flag(*v, "--ping-interval");
  if (o.ping_interval.count() == 0) throw flag_error("--ping-interval: must be positive");
  if (auto v = text("publish-rate")) o.publish_rate = parse_number(*v, "--publish-rate", 0, 1e6);
  if (auto v = text("duration")) o.duration = duration_flag(*v, "--duration");
  if (auto v = text("warmup")) o.warmup = duration_flag(*v, "--warmup");
  if (auto v = text("settle")) o.settle = duration_flag(*v, "--settle");
  if (auto v = text("spread")) o.spread = duration_flag(*v, "--spread");
  if (auto v = text("max-retry")) o.max_retry = duration_flag(*v, "--max-retry");
  if (o.duration.count() == 0) throw flag_error("--duration: must be positive");
  if (o.warmup >= o.duration) throw flag_error("--warmup: must be shorter than --duration");
  if (auto v = text("procs")) o.procs = parse_whole<unsigned>(*v, "--procs");
  if (o.procs == 0 || o.procs > 64) throw flag_error("--procs: must be 1..64");
  if (o.procs > o.clients) throw flag_error("--procs: more workers than clients");
  if (auto v = text("admin-token")) o.admin_token = *v;
  if (auto v = text("server-pid")) {
    for (const auto part : split(*v, ',')) {
      const auto pid = parse_whole<int>(part, "--server-pid");
      if (pid <= 0) throw flag_error("--server-pid: must be positive");
      o.server_pids.push_back(pid);
    }
  }
  if (auto v = text("server-kind")) o.kind = parse_server_kind(*v);
  if (auto v = text("channel")) {
    const bool ok = !v->empty() && v->size() <= 64 && std::all_of(v->begin(), v->end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    });
    if (!ok) throw flag_error(fmt::format("--channel: '{}' is not 1-64 of [A-Za-z0-9_-]", *v));
    o.channel = *v;
  }
  if (auto v = text("pusher-key")) o.pusher_key = *v;
  if (o.kind == server_kind::pusher && o.pusher_key.empty()) {
    throw flag_error("--server-kind pusher: needs --pusher-key");
  }
  if (o.kind != server_kind::pusher && !o.pusher_key.empty()) {
    throw flag_error("--pusher-key: only with --server-kind pusher");
  }
  if (o.kind != server_kind::ringcast) {
    // Nchan's subscribers, and Pusher's, are plain WebSockets with no resume: a dropped
    // connection misses what was published meanwhile, so churn would only measure that.
    const auto kind = o.kind == server_kind::nchan ? "nchan" : "pusher";
    if (o.mix.weight[1] != 0 || o.mix.weight[2] != 0) {
      throw flag_error(fmt::format("--server-kind {}: only --mix ws is supported", kind));
    }
    if (o.churn_pct > 0) {
      throw flag_error(fmt::format("--server-kind {}: --churn needs resume; use 0", kind));
    }
    if (o.spread.count() > 0) {
      throw flag_error(fmt::format("--server-kind {}: --spread is ringcast's", kind));
    }
    if (o.channel.empty()) o.channel = "broadcast";
  }
  o.tls = vm.count("tls") > 0;
  if (auto v = text("tls-ca")) {
    if (v->empty()) throw flag_error("--tls-ca: empty file name");
    // Checked here, so that a wrong path stops the run before any worker or client starts.
    if (::access(v->c_str(), R_OK) != 0) {
      throw flag_error(fmt::format("--tls-ca: cannot read '{}': {}", *v, std::strerror(errno)));
    }
    if (const auto ctx = tls_context::for_client(*v); !ctx) {
      throw flag_error(fmt::format("--tls-ca: {} (expected PEM certificates)", ctx.error));
    }
    o.tls = true;
    o.tls_ca = *v;
  }
  o.ws_deflate = vm.count("ws-deflate") > 0;
  if (auto v = text("payload")) {
    std::ifstream in(*v);
    if (!in)
      throw flag_error(fmt::format("--payload: cannot read '{}': {}", *v, std::strerror(errno)));
    std::ostringstream body;
    body << in.rdbuf();
    try {
      o.payload_members = payload_members(body.str());
    } catch (const flag_error& e) {
      throw flag_error(fmt::format("--payload {}: {}", *v, e.what()));
    }
  }
  o.expect_zero_loss = vm.count("expect-zero-loss") > 0;
  if (auto v = text("arrival")) {
    if (*v != "read" && *v != "kernel") throw flag_error("--arrival: read or kernel");
    o.kernel_arrival = *v == "kernel";
  }
  if (o.kernel_arrival) {
    // The stamps come from the ws clients' own reads of plain sockets; the publisher lives in the
    // first process, which must not drop to idle priority with the clients.
    if (o.mix.weight[1] != 0 || o.mix.weight[2] != 0)
      throw flag_error("--arrival kernel: ws clients only (--mix ws)");
    if (o.tls) throw flag_error("--arrival kernel: not with --tls");
    if (o.procs < 2) throw flag_error("--arrival kernel: needs --procs 2 or more");
  }
  return o;
}

}  // namespace ringcast::load
