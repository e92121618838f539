#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ringcast::load {

enum class transport { ws, sse, poll };
inline constexpr std::array<transport, 3> all_transports{transport::ws, transport::sse,
                                                         transport::poll};
std::string_view name_of(transport t);

// Which server the tool drives. ringcast: its protocol (envelopes, ids, resume, admin API).
// nchan: nginx + Nchan, WebSocket subscribers on /sub/<channel> that receive the published body
// as is, publishes by POST /pub/<channel>; for the comparison in bench/compare/.
// pusher: ringcast's Pusher door (docs/pusher.md): WebSocket clients on /app/<--pusher-key> that
// subscribe to --channel and receive its events; publishes through ringcast's admin API to that
// channel. Pusher's frames carry no id, so, as with nchan, message seq is booked as id seq + 1.
enum class server_kind { ringcast, nchan, pusher };
server_kind parse_server_kind(std::string_view text);

// Weights per transport, e.g. ws=70,sse=20,poll=10 (weights need not sum to 100).
struct transport_mix {
  std::array<unsigned, 3> weight{100, 0, 0};
  unsigned total() const { return weight[0] + weight[1] + weight[2]; }
};

// An IPv4 loopback endpoint; the tool never talks to anything outside 127.0.0.0/8.
struct target {
  std::string host;  // dotted quad
  std::uint16_t port = 0;
  std::string text() const { return host + ":" + std::to_string(port); }
};

struct options {
  std::vector<target> targets{{"127.0.0.1", 8080}};
  std::size_t clients = 100;
  transport_mix mix;
  double rate = 500;     // connects per second
  double churn_pct = 0;  // percent of clients per second that reconnect
  double idle_pct = 0;   // percent of ws clients that never send
  std::chrono::milliseconds ping_interval{20'000};
  double publish_rate = 10;  // broadcasts per second
  std::chrono::milliseconds duration{15'000};
  std::chrono::milliseconds warmup{2'000};
  std::chrono::milliseconds settle{2'000};
  std::chrono::milliseconds spread{0};  // "spread" of every publish; 0: delivered at once
  std::chrono::milliseconds max_retry{5'000};
  unsigned procs = 1;
  std::string admin_token;
  server_kind kind = server_kind::ringcast;
  // nchan, pusher: the one channel every client subscribes to. ringcast: empty unless --channel
  // is given, then every client joins it (channels=) and every publish addresses it.
  std::string channel;
  std::string pusher_key;        // pusher: the app key of /app/<key>
  std::vector<int> server_pids;  // sampled and summed (nginx: master and workers)
  bool tls = false;              // every connection: wss://, https://
  bool ws_deflate = false;       // ws clients offer permessage-deflate (RFC 7692)
  // --payload: members (`"k":v,...`, no braces) every publish carries after "t" and "seq".
  std::string payload_members;
  std::string tls_ca;  // PEM to verify the server against; empty: not verified
  bool expect_zero_loss = false;
  // --arrival kernel: the kernel's receive times, the clients at idle priority while publishing.
  bool kernel_arrival = false;
};

// Thrown for a flag the tool cannot run with; main prints what() and exits 2.
struct flag_error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `env_token` is RINGCAST_ADMIN_TOKEN (or null); --admin-token wins over it.
// Returns nullopt when --help or --version was asked for (the text to print went to `help_out`).
std::optional<options> parse_flags(int argc, const char* const* argv, const char* env_token,
                                   std::string* help_out);

transport_mix parse_mix(std::string_view text);
target parse_target(std::string_view text);
std::vector<target> parse_targets(std::string_view text);
// A duration flag in the server's syntax ("25", "500ms", "90s", "2m"); the error names the flag.
std::chrono::milliseconds duration_flag(std::string_view text, std::string_view flag);

// The members of the JSON object in `text` as written (no braces), for --payload; throws
// flag_error when it is not a JSON object.
std::string payload_members(std::string_view text);

// From start to the final count: publishing stops at --duration, the last publish's deliveries
// take up to --spread more, then --settle for late ones.
inline std::chrono::milliseconds run_length(const options& o) {
  return o.duration + o.spread + o.settle;
}

// Which transport each of `n` clients uses: interleaved (smooth weighted round-robin, as nginx
// balances upstreams) so that every ramp-up prefix has the mix's proportions.
std::vector<transport> assign_transports(const transport_mix& mix, std::size_t n);

// Whether the k-th ws client is idle: spreads idle_pct evenly over the ws clients.
bool is_idle(std::size_t ws_ordinal, double idle_pct);

}  // namespace ringcast::load
