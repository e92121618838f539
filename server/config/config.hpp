// Every setting of the ringcast server (the flags, or --config FILE), each filled by its entry in
// the flag table (flag_table.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "protocol/client_address.hpp"
#include "protocol/host_policy.hpp"
#include "protocol/http_url.hpp"
#include "protocol/origin_policy.hpp"
#include "protocol/redis_url.hpp"

namespace ringcast {

// --log-level: `warn` keeps only the lines that need attention.
enum class log_level : std::uint8_t { info, warn };

struct config {
  using ms = std::chrono::milliseconds;

  std::string listen_host = "127.0.0.1";  // --listen HOST:PORT
  std::uint16_t listen_port = 8080;
  unsigned threads = 0;  // --threads; 0 means one per core (resolved by parse_config)

  // docs/protocol.md, "Timeouts".
  ms poll_timeout{25'000};
  ms heartbeat{25'000};
  ms idle_timeout{60'000};
  ms session_ttl{120'000};
  // --first-poll-ttl: a session whose only connection was one long-poll (a client that never
  // came back) is kept this long, not --session-ttl (docs/security.md, "Sessions").
  ms first_poll_ttl{10'000};
  ms handshake_timeout{10'000};
  ms keepalive_timeout{10'000};  // idle between two requests; 0 = no keep-alive
  ms write_timeout{30'000};      // --write-timeout: a reply or queued data not written by then
  ms max_connection_age{0};      // 0 = off
  ms drain{5'000};
  ms reconnect_delay{1'000};  // --reconnect-delay: centre of the jittered retry_ms
  ms max_spread{600'000};     // --max-spread: the longest "spread" a publish may ask for

  ms tick{100};                     // --tick-ms (a plain number of milliseconds)
  std::uint32_t wheel_slots = 512;  // --wheel-slots, rounded up to a power of two

  std::size_t history = 1000;            // --history: messages retained for resume
  std::size_t max_queue = 1024;          // --max-queue: messages queued per connection
  std::size_t max_body = 64 * 1024;      // --max-body: admin request body bytes
  std::size_t max_connections = 20'000;  // --max-connections: open TCP connections
  std::size_t send_buffer =
      256 * 1024;                       // --send-buffer: SO_SNDBUF of a client socket; 0 = kernel's
  std::size_t max_scheduled = 100'000;  // --max-scheduled: promotions waiting to be published
  std::size_t max_sticky = 100;         // --max-sticky: sticky messages in force at once

  // Per-address and per-client limits (docs/security.md): TCP connections one address holds
  // (0 = no limit), its connects a second (0 = no limit), the bits of an IPv6 address that name
  // one client, the proxies whose X-Forwarded-For names the client, and the frames a second a
  // WebSocket client may send (0 = no limit).
  std::size_t max_connections_per_ip = 64;  // --max-connections-per-ip
  std::uint32_t connect_rate_per_ip = 0;    // --connect-rate-per-ip
  unsigned ipv6_prefix = 64;                // --ipv6-prefix
  std::string trusted_proxy;                // --trusted-proxy CIDR[,CIDR...] as given
  std::vector<address_range> trusted_proxies;
  std::uint32_t client_message_rate = 50;  // --client-message-rate

  // --max-sessions (0: 4 x --max-connections, see session_limit()) and --max-sessions-per-user:
  // sessions held at once (docs/security.md#limits-and-what-happens-at-them).
  std::size_t max_sessions = 0;
  std::size_t max_sessions_per_user = 16;
  std::size_t session_limit() const {
    if (max_sessions) return max_sessions;
    return max_connections > SIZE_MAX / 4 ? SIZE_MAX : 4 * max_connections;
  }
  // --max-poll-batch: messages in one long-poll reply at most.
  std::size_t max_poll_batch = 100;
  bool compression = true;               // --compression on|off: WebSocket permessage-deflate
  std::size_t compress_min_bytes = 100;  // --compress-min-bytes: smaller messages go plain

  std::string admin_token;  // --admin-token, else $RINGCAST_ADMIN_TOKEN, else random
  bool admin_token_generated = false;

  std::string web_root;  // --web-root: serve web/ from disk instead of the embedded copy
  // --redis URL: several nodes share one stream (none: a single node).
  std::optional<redis_url> redis;

  // Client tokens: --client-secret (else $RINGCAST_CLIENT_SECRET) or --client-public-key FILE,
  // refusing tokens without `exp` unless --allow-tokens-without-exp. Neither: the client endpoints
  // are open. The verifier itself is built
  // from these at start-up (server/net/node_credentials.hpp).
  std::string client_secret;  // the HS256 secret, also for POST /demo/token
  std::string client_public_key_file;
  std::string client_public_key_pem;  // the file's contents
  bool require_exp = true;            // false with --allow-tokens-without-exp
  std::string client_audience;  // --client-audience: a token's `aud` must name it (empty: any)
  std::string client_issuer;    // --client-issuer: a token's `iss` must be it (empty: any)
  bool demo = false;            // --demo: demo-only routes (POST /demo/token)
  bool client_tokens() const { return !client_secret.empty() || !client_public_key_pem.empty(); }

  // --allowed-origins LIST: the pages of other sites that may open /ws, /sse and /poll besides
  // the server's own (origin_policy.hpp); the text as given, for the SIGHUP diff.
  origin_policy allowed_origins;
  std::string allowed_origins_text;
  // --allowed-hosts LIST: the names this server answers to (host_policy.hpp); empty: any.
  host_policy allowed_hosts;
  std::string allowed_hosts_text;

  // --tls-cert FILE --tls-key FILE: HTTPS and WSS on the listening port (empty: plaintext). The
  // files are read at start-up and again on SIGHUP.
  std::string tls_cert_file;
  std::string tls_key_file;
  bool tls() const { return !tls_cert_file.empty(); }
  ms hsts{365LL * 24 * 3'600'000};  // --hsts: Strict-Transport-Security max-age on TLS; 0 = off

  log_level log = log_level::info;  // --log-level
  // --hook-url URL: session events POSTed to the shop's backend in batches, retried on failure
  // (docs/operations.md, "Event hooks"); none: no hooks.
  std::optional<http_url> hook_url;
  std::string hook_secret;  // --hook-secret or --hook-secret-file: signs each body
  std::string hook_ca_file = "/etc/ssl/certs/ca-certificates.crt";  // --hook-ca: https backends
  std::size_t hook_batch = 100;      // --hook-batch: events per POST at most
  ms hook_flush{250};                // --hook-flush: an event waits at most this long for a batch
  ms hook_timeout{2'000};            // --hook-timeout: a POST not answered by then is retried
  std::size_t hook_queue = 100'000;  // --hook-queue: events kept per loop; the oldest go beyond

  // --connect-hook URL: the backend admits each connect first (docs/protocol.md, "Connect hook");
  // --connect-hook-fallback allow admits when it does not answer (default: refuse with 503).
  std::optional<http_url> connect_hook;
  bool connect_hook_fallback_allow = false;
  // --connect-hook-concurrency N: connect-hook POSTs in flight per node; beyond, a connect gets
  // 503 + Retry-After (never the fallback).
  std::size_t connect_hook_concurrency = 64;

  // The Pusher Channels door (docs/pusher.md): one app, open only when --pusher-app-id,
  // --pusher-key and --pusher-secret (or --pusher-secret-file, else $RINGCAST_PUSHER_SECRET) are
  // all given; --pusher-client-events lets subscribers of private and presence channels send
  // client-* events; --pusher-webhook-url URL[,URL...] receives Pusher's webhooks.
  std::string pusher_app_id;
  std::string pusher_key;
  std::string pusher_secret;
  bool pusher_client_events = false;
  std::vector<http_url> pusher_webhook_urls;
  std::string pusher_webhook_urls_text;  // as given, for the SIGHUP diff
  bool pusher() const { return !pusher_app_id.empty(); }

  std::string config_file;  // --config FILE: read again on SIGHUP (config_reload.hpp)

  // Upgrade in place (docs/operations.md#upgrading): --upgrade-binary FILE, exec'd on SIGUSR2
  // (empty: this binary's own path); --check-config only checks the settings; the internal
  // --upgrade-state-fd N is the descriptor of the old process's state (-1: a fresh start).
  std::string upgrade_binary;
  ms upgrade_check_timeout{10'000};  // --upgrade-check-timeout: each check of the new binary
  bool check_config = false;
  int upgrade_state_fd = -1;
  // --print-routes: print the HTTP route table as JSON and exit (tests compare it with
  // docs/openapi.yaml).
  bool print_routes = false;

  // The files secrets and keys were read from, as {flag, path} (--tls-key, --*-file): checked at
  // start-up for being readable by others (secret_file_warnings).
  struct secret_file {
    std::string flag, path;
  };
  std::vector<secret_file> secret_files;
};

}  // namespace ringcast
