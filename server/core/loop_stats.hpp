// Counters of one event loop. Written only by the loop's own thread; read by posting to it.
#pragma once

#include <array>
#include <cstdint>

namespace ringcast {

struct loop_stats {
  std::uint64_t ws = 0;  // live connections by transport (poll = held polls)
  std::uint64_t sse = 0;
  std::uint64_t poll = 0;
  std::uint64_t sessions_created = 0;
  std::uint64_t delivered = 0;
  std::uint64_t paced_delivered = 0;   // of `delivered`, at a session's turn of a paced publish
  std::uint64_t client_errors = 0;     // malformed or unknown client messages answered `error`
  std::uint64_t acked = 0;             // client acks that named a message in history
  std::uint64_t acks_refused = 0;      // ... one that was never sent to that session
  std::uint64_t messages_expired = 0;  // messages whose ttl passed
  std::uint64_t expired_notices = 0;   // `expired` notices queued to clients
  std::uint64_t taken_down = 0;        // messages expired at once by DELETE /admin/messages/<id>

  // Expirations and endings by reason.
  std::uint64_t idle = 0;
  std::uint64_t poll_timeout = 0;
  std::uint64_t session_ttl = 0;
  std::uint64_t handshake = 0;
  std::uint64_t max_age = 0;
  std::uint64_t slow = 0;
  std::uint64_t kicked = 0;
  std::uint64_t replaced = 0;
  std::uint64_t expired = 0;  // the client token's exp passed
  // TLS handshakes that failed, plaintext HTTP on the TLS port included.
  std::uint64_t tls_failed = 0;
  // Connections that ended (closed by the client, or at --handshake-timeout) before sending a
  // byte of a request: a browser's spare connections, health probes that only connect. Counted
  // apart from `handshake` and `tls_failed` so that those stay worth alerting on.
  std::uint64_t unused = 0;
  // WebSocket clients closed (1008) for sending frames faster than --client-message-rate.
  std::uint64_t message_rate = 0;

  // Requests refused by a browser policy: a connect from a foreign Origin (403 origin), a request
  // naming a Host outside --allowed-hosts (421). A rise after a deploy is a page left out.
  std::uint64_t refused_origin = 0;
  std::uint64_t refused_host = 0;
  // A reply, long-poll answer or queued WebSocket/SSE data not written within --write-timeout.
  std::uint64_t write_timeout = 0;
  // A session without a connection dropped to make room for a new one of the same user
  // (--max-sessions-per-user), as if its TTL had run out.
  std::uint64_t displaced = 0;
  // Connects refused because they would create a session beyond --max-sessions (503) or beyond
  // --max-sessions-per-user with every session of the user live (429).
  std::uint64_t sessions_refused_total = 0;
  std::uint64_t sessions_refused_user = 0;
  // Connects read on this loop and handed to the one that holds their user's sessions
  // (core/home_slots.hpp).
  std::uint64_t connects_handed = 0;

  std::uint64_t sessions_reused = 0;  // a connect found its session within the TTL
  std::uint64_t moves_reconnect = 0;  // node moves caused by a reconnect
  std::uint64_t moves_activity = 0;   // lazy re-arms caused by client activity or traffic

  // Compression (WebSocket permessage-deflate, SSE gzip): bytes written to WebSocket and SSE
  // clients, messages compressed (once per node and form, by the loop that needed it first),
  // deliveries sent compressed and the bytes they saved against the plain bytes.
  std::uint64_t bytes_written = 0;
  std::uint64_t messages_compressed = 0;
  std::uint64_t compressed_sent = 0;
  std::uint64_t compression_saved = 0;
};

// Every counter once, by name: what sums the loops and what prints them read this list, so a new
// counter is added in two places (the struct and here), not five. `expiration`: listed under
// `expirations` in /admin/stats and as a `reason` of ringcast_expirations_total.
struct loop_stat_field {
  const char* name;
  std::uint64_t loop_stats::*member;
  bool expiration;
};
inline constexpr std::array loop_stat_fields{
    loop_stat_field{"ws", &loop_stats::ws, false},
    loop_stat_field{"sse", &loop_stats::sse, false},
    loop_stat_field{"poll", &loop_stats::poll, false},
    loop_stat_field{"sessions_created", &loop_stats::sessions_created, false},
    loop_stat_field{"delivered", &loop_stats::delivered, false},
    loop_stat_field{"paced_delivered", &loop_stats::paced_delivered, false},
    loop_stat_field{"client_errors", &loop_stats::client_errors, false},
    loop_stat_field{"acked", &loop_stats::acked, false},
    loop_stat_field{"acks_refused", &loop_stats::acks_refused, false},
    loop_stat_field{"messages_expired", &loop_stats::messages_expired, false},
    loop_stat_field{"expired_notices", &loop_stats::expired_notices, false},
    loop_stat_field{"taken_down", &loop_stats::taken_down, false},
    loop_stat_field{"idle", &loop_stats::idle, true},
    loop_stat_field{"poll_timeout", &loop_stats::poll_timeout, true},
    loop_stat_field{"session_ttl", &loop_stats::session_ttl, true},
    loop_stat_field{"handshake", &loop_stats::handshake, true},
    loop_stat_field{"max_age", &loop_stats::max_age, true},
    loop_stat_field{"slow", &loop_stats::slow, true},
    loop_stat_field{"kicked", &loop_stats::kicked, true},
    loop_stat_field{"replaced", &loop_stats::replaced, true},
    loop_stat_field{"expired", &loop_stats::expired, true},
    loop_stat_field{"tls_failed", &loop_stats::tls_failed, true},
    loop_stat_field{"unused", &loop_stats::unused, true},
    loop_stat_field{"refused_origin", &loop_stats::refused_origin, false},
    loop_stat_field{"refused_host", &loop_stats::refused_host, false},
    loop_stat_field{"message_rate", &loop_stats::message_rate, true},
    loop_stat_field{"write_timeout", &loop_stats::write_timeout, true},
    loop_stat_field{"displaced", &loop_stats::displaced, true},
    loop_stat_field{"sessions_refused_total", &loop_stats::sessions_refused_total, false},
    loop_stat_field{"sessions_refused_user", &loop_stats::sessions_refused_user, false},
    loop_stat_field{"connects_handed", &loop_stats::connects_handed, false},
    loop_stat_field{"sessions_reused", &loop_stats::sessions_reused, false},
    loop_stat_field{"moves_reconnect", &loop_stats::moves_reconnect, false},
    loop_stat_field{"moves_activity", &loop_stats::moves_activity, false},
    loop_stat_field{"bytes_written", &loop_stats::bytes_written, false},
    loop_stat_field{"messages_compressed", &loop_stats::messages_compressed, false},
    loop_stat_field{"compressed_sent", &loop_stats::compressed_sent, false},
    loop_stat_field{"compression_saved", &loop_stats::compression_saved, false},
};

}  // namespace ringcast
