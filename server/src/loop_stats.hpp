// Counters of one event loop. Written only by the loop's own thread; read by posting to it.
#pragma once

#include <cstdint>

namespace ringcast {

struct loop_stats {
  std::uint64_t ws = 0;  // live connections by transport (poll = held polls)
  std::uint64_t sse = 0;
  std::uint64_t poll = 0;
  std::uint64_t sessions_created = 0;
  std::uint64_t delivered = 0;
  std::uint64_t client_errors = 0;  // malformed or unknown client messages answered `error`

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

  std::uint64_t sessions_reused = 0;  // a connect found its session within the TTL
  std::uint64_t moves_reconnect = 0;  // node moves caused by a reconnect
  std::uint64_t moves_activity = 0;   // lazy re-arms caused by client activity or traffic
};

}  // namespace ringcast
