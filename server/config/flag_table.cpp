#include "config/flag_table.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <limits>
#include <thread>

#include <fmt/format.h>

#include "config/flag_error.hpp"
#include "config/flag_values.hpp"
#include "protocol/comma_list.hpp"
#include "protocol/duration.hpp"

namespace ringcast {
namespace {

using ms = config::ms;
constexpr std::uint64_t no_limit = std::numeric_limits<std::size_t>::max();

// Whether SIGHUP applies a change to the running server.
enum class sighup { restart, live };

using live_copy = std::function<void(config&, const config&)>;
template <class T>
live_copy copied_if(sighup when, T config::*field) {
  if (when == sighup::restart) return nullptr;
  return [field](config& running, const config& fresh) { running.*field = fresh.*field; };
}

std::string yes_no(bool b) {
  return b ? "true" : "false";
}

// A timeout runs on the wheel, which cannot measure anything shorter than one tick; 0 may turn
// it off (max-connection-age, keep-alive) or make it immediate (drain).
enum class on_wheel { no, timeout, timeout_or_zero };
using applies_to = bool (*)(const config&);

flag duration(std::string_view name, ms config::*field, sighup when, on_wheel wheel,
              std::string_view help, applies_to applies = nullptr) {
  flag f{.name = name,
         .value_name = "DURATION",
         .help = help,
         .read = [name, field](const std::string& text,
                               config& cfg) { cfg.*field = duration_value(name, text); },
         .value = [field](const config& c) { return format_duration(c.*field); },
         .has_default = true,
         .apply_live = copied_if(when, field)};
  if (wheel == on_wheel::no) return f;
  f.check = [name, field, wheel, applies](const config& cfg) {
    const ms value = cfg.*field;
    if (applies && !applies(cfg)) return;
    if (value.count() == 0) {
      if (wheel == on_wheel::timeout) bad_flag(name, "must be more than 0");
    } else if (value < cfg.tick) {
      throw flag_error(fmt::format(
          "--tick-ms {} is longer than --{} {}; every timeout must be at least one tick",
          cfg.tick.count(), name, format_duration(value)));
    }
  };
  return f;
}

// A whole number from `lo` to `hi`, shown as --help's N or BYTES.
template <class T>
flag number(std::string_view name, std::string_view value_name, T config::*field, std::uint64_t lo,
            std::uint64_t hi, sighup when, std::string_view help) {
  return {
      .name = name,
      .value_name = value_name,
      .help = help,
      .read = [=](const std::string& text,
                  config& cfg) { cfg.*field = static_cast<T>(number_value(name, text, lo, hi)); },
      .value = [field](const config& c) { return std::to_string(c.*field); },
      .has_default = true,
      .apply_live = copied_if(when, field)};
}

// A text read with others after the table (a token claim or key with the client secret, a secret
// with its file, the TLS pair: parse_config.cpp), so it has no `read`; compared as it lands.
flag text(std::string_view name, std::string_view value_name, std::string config::*field,
          std::string_view help) {
  return {.name = name, .value_name = value_name, .help = help, .value = [field](const config& c) {
            return c.*field;
          }};
}

// A secret given on the command line or in the file (read with its file, config_secrets.hpp).
flag secret(std::string_view name, std::string_view value_name, std::string config::*field,
            std::string_view help) {
  flag f = text(name, value_name, field, help);
  f.secret = true;
  return f;
}

// A secret's file: read with the secret (config_secrets.hpp), compared as the secret.
flag secret_file(std::string_view name, std::string_view help) {
  return {.name = name, .value_name = "FILE", .help = help};
}

std::vector<flag_group> build_table() {
  std::vector<flag_group> table;

  table.push_back(
      {"General",
       {
           {.name = "help",
            .help = "print this help and exit",
            .in_file = false,
            .short_name = 'h'},
           {.name = "version", .help = "print the version and exit", .in_file = false},
           {.name = "config",
            .value_name = "FILE",
            .help = "read settings from FILE: one 'name = value' a line with the names of these "
                    "flags; a flag given on the command line overrides the file "
                    "(docs/operations.md#config-file)",
            .in_file = false},
       }});

  table.push_back(
      {"Listening",
       {
           {.name = "listen",
            .value_name = "HOST:PORT",
            .help = "address to serve on: IPv4:PORT, [IPv6]:PORT or NAME:PORT (resolved at start); "
                    "port 0 picks a free one",
            .read = read_listen,
            .value =
                [](const config& c) { return c.listen_host + ':' + std::to_string(c.listen_port); },
            .has_default = true},
           {.name = "threads",
            .value_name = "N",
            .help = "event-loop threads; 0 = one per CPU core",
            .read =
                [](const std::string& text, config& cfg) {
                  cfg.threads = static_cast<unsigned>(number_value("threads", text, 0, 1024));
                  if (cfg.threads == 0)
                    cfg.threads = std::max(1u, std::thread::hardware_concurrency());
                },
            .value = [](const config& c) { return std::to_string(c.threads); },
            .has_default = true},
           {.name = "web-root",
            .value_name = "DIR",
            .help = "serve the web pages from DIR instead of the copy built into the binary",
            .read =
                [](const std::string& text, config& cfg) {
                  cfg.web_root = text;
                  check_web_root(cfg.web_root);
                },
            .value = [](const config& c) { return c.web_root; }},
           {.name = "demo",
            .help = "enable demo-only routes: POST /demo/token mints client tokens (with "
                    "--client-secret)",
            .read = [](const std::string&, config& cfg) { cfg.demo = true; },
            .value = [](const config& c) { return yes_no(c.demo); }},
           {.name = "trusted-proxy",
            .value_name = "CIDRS",
            .help = "comma-separated networks (10.0.0.0/8,::1) whose X-Forwarded-For names the "
                    "client (the last hop not among them) and whose X-Forwarded-Proto the scheme "
                    "of the server's own origin; from any other peer both are ignored "
                    "(default: none)",
            .read =
                [](const std::string& text, config& cfg) {
                  auto ranges = parse_address_ranges(text);
                  if (!ranges) bad_flag("trusted-proxy", ranges.error);
                  cfg.trusted_proxy = text;
                  cfg.trusted_proxies = std::move(*ranges.value);
                },
            .value = [](const config& c) { return c.trusted_proxy; },
            .apply_live =
                [](config& running, const config& fresh) {
                  running.trusted_proxy = fresh.trusted_proxy;
                  running.trusted_proxies = fresh.trusted_proxies;
                }},
       }});

  table.push_back(
      {"Timeouts",
       {
           duration("poll-timeout", &config::poll_timeout, sighup::restart, on_wheel::timeout,
                    "a held long-poll with nothing to send is answered reconnect/timeout after "
                    "this"),
           duration("heartbeat", &config::heartbeat, sighup::restart, on_wheel::timeout,
                    "send a WebSocket ping / SSE comment after this long without traffic"),
           duration("idle-timeout", &config::idle_timeout, sighup::restart, on_wheel::timeout,
                    "close a connection after this long without client activity"),
           duration("session-ttl", &config::session_ttl, sighup::restart, on_wheel::timeout,
                    "keep a session without a connection this long, for reconnects to resume"),
           duration("first-poll-ttl", &config::first_poll_ttl, sighup::restart, on_wheel::timeout,
                    "keep a session whose only connection was one long-poll this long (at most "
                    "--session-ttl): its client polls again at once, or never"),
           duration("handshake-timeout", &config::handshake_timeout, sighup::live,
                    on_wheel::timeout,
                    "close a TCP connection that has not sent a whole HTTP request by then"),
           duration("keepalive-timeout", &config::keepalive_timeout, sighup::live,
                    on_wheel::timeout_or_zero,
                    "close a keep-alive connection idle this long between requests (announced in "
                    "Keep-Alive: timeout=N); 0 = close after every response"),
           duration("write-timeout", &config::write_timeout, sighup::live, on_wheel::timeout,
                    "close a connection whose reply, long-poll answer or queued WebSocket/SSE "
                    "data is not fully written this long after it started"),
           duration("max-connection-age", &config::max_connection_age, sighup::restart,
                    on_wheel::timeout_or_zero,
                    "ask a WebSocket or SSE stream to reconnect (rebalance) after this long; 0 = "
                    "never"),
           duration("drain", &config::drain, sighup::restart, on_wheel::timeout_or_zero,
                    "on SIGTERM/SIGINT, spread the clients' reconnects over this long, then exit"),
           duration("reconnect-delay", &config::reconnect_delay, sighup::restart, on_wheel::no,
                    "centre of the jittered retry_ms told to clients that should reconnect"),
           {.name = "tick-ms",
            .value_name = "N",
            .help = "timing-wheel tick in milliseconds (1-60000): how late a timeout may fire",
            .read = [](const std::string& text,
                       config& cfg) { cfg.tick = ms{number_value("tick-ms", text, 1, 60'000)}; },
            .value = [](const config& c) { return std::to_string(c.tick.count()); },
            .has_default = true},
           {.name = "wheel-slots",
            .value_name = "N",
            .help = "slots per timing-wheel level (16-65536, rounded up to a power of two)",
            .read =
                [](const std::string& text, config& cfg) {
                  cfg.wheel_slots = std::bit_ceil(
                      static_cast<std::uint32_t>(number_value("wheel-slots", text, 16, 65'536)));
                },
            .value = [](const config& c) { return std::to_string(c.wheel_slots); },
            .has_default = true},
       }});

  table.push_back(
      {"Limits",
       {
           number("history", "N", &config::history, 1, no_limit, sighup::restart,
                  "messages retained so that clients can resume"),
           number("max-queue", "N", &config::max_queue, 1, no_limit, sighup::live,
                  "messages queued per connection before it is closed as slow"),
           number("max-body", "BYTES", &config::max_body, 1, no_limit, sighup::live,
                  "largest admin request body accepted"),
           number("max-connections", "N", &config::max_connections, 1, no_limit, sighup::live,
                  "open TCP connections beyond which new ones get 503 overloaded"),
           number("send-buffer", "BYTES", &config::send_buffer, 0, 1ULL << 30, sighup::live,
                  "kernel send buffer (SO_SNDBUF) of each accepted connection, so that a client "
                  "that does not read pins at most this much kernel memory; 0 = the kernel's "
                  "autotuned size"),
           number("max-connections-per-ip", "N", &config::max_connections_per_ip, 0, no_limit,
                  sighup::live,
                  "TCP connections one address may hold open, counted from accept (behind a "
                  "--trusted-proxy: under the X-Forwarded-For client, from its request head); more "
                  "are closed at once (a proxied one gets 503 overloaded); 0 = no limit"),
           number("ipv6-prefix", "BITS", &config::ipv6_prefix, 1, 128, sighup::live,
                  "an IPv6 client is its network of this many bits for every per-address limit "
                  "(one customer's /64 is one address); IPv4 addresses count one by one"),
           number("connect-rate-per-ip", "N", &config::connect_rate_per_ip, 0, 1'000'000,
                  sighup::live,
                  "connects to /ws, /sse, /poll per second per address, in bursts of N; more get "
                  "429 too_many with Retry-After; 0 = no limit"),
           number("client-message-rate", "N", &config::client_message_rate, 0, 1'000'000,
                  sighup::live,
                  "frames per second a WebSocket client may send, in bursts of 2N; beyond, the "
                  "connection is closed with 1008; 0 = no limit"),
           number("max-sessions", "N", &config::max_sessions, 0, no_limit, sighup::restart,
                  "sessions held at once; a connect that would create one more gets 503 "
                  "overloaded (0 = 4 x --max-connections)"),
           number("max-sessions-per-user", "N", &config::max_sessions_per_user, 1, no_limit,
                  sighup::restart,
                  "sessions of one user; a new one first drops the user's oldest session without "
                  "a connection, else gets 429 too_many"),
           number("max-poll-batch", "N", &config::max_poll_batch, 1, no_limit, sighup::restart,
                  "messages in one long-poll reply at most (and about 1 MiB); more owed: "
                  "\"more\": true"),
       }});

  table.push_back(
      {"Compression",
       {
           {.name = "compression",
            .value_name = "MODE",
            .help = "on or off: WebSocket permessage-deflate when a client offers it (each "
                    "message compressed once)",
            .read =
                [](const std::string& text, config& cfg) {
                  if (text != "on" && text != "off")
                    bad_flag("compression", "expected on or off, got '" + text + "'");
                  cfg.compression = text == "on";
                },
            .value = [](const config& c) { return std::string(c.compression ? "on" : "off"); },
            .has_default = true},
           number("compress-min-bytes", "BYTES", &config::compress_min_bytes, 0, no_limit,
                  sighup::restart,
                  "messages shorter than this are sent uncompressed (compressing them does not "
                  "pay)"),
       }});

  table.push_back(
      {"Authentication and TLS",
       {
           // A generated token is not a setting: two generated ones count as unchanged, and
           // SIGHUP never replaces the running token with a new random one.
           {.name = "admin-token",
            .value_name = "TOKEN",
            .help = "bearer token for the admin API (default: $RINGCAST_ADMIN_TOKEN, else a "
                    "random one, logged at start-up)",
            .value =
                [](const config& c) {
                  return c.admin_token_generated ? std::string{} : c.admin_token;
                },
            .apply_live =
                [](config& running, const config& fresh) {
                  if (fresh.admin_token_generated) return;
                  running.admin_token = fresh.admin_token;
                  running.admin_token_generated = false;
                },
            .secret = true},
           secret_file("admin-token-file",
                       "read the admin token from FILE (its first line), so that it is not seen in "
                       "ps"),
           secret("client-secret", "SECRET", &config::client_secret,
                  "require HS256 client tokens signed with SECRET on /ws, /sse and /poll (default: "
                  "$RINGCAST_CLIENT_SECRET; neither: clients are not authenticated)"),
           secret_file("client-secret-file",
                       "read the HS256 client secret from FILE (its first line) instead"),
           // Compared by the key itself: the same path with a new key in it is a change.
           text("client-public-key", "FILE", &config::client_public_key_pem,
                "require client tokens signed by the key of this PEM public key: RS256 for an RSA "
                "key, ES256 for an EC P-256 key"),
           {.name = "allow-tokens-without-exp",
            .help = "accept client tokens without an exp (expiry) claim (refused by default: such "
                    "a token, once leaked, is valid forever)",
            .value = [](const config& c) { return yes_no(!c.require_exp); }},
           // Not a setting of its own: the default now, --allow-tokens-without-exp's opposite.
           {.name = "require-exp",
            .help = "refuse client tokens without an exp claim (the default; kept so that older "
                    "command lines and config files still start)"},
           text("client-audience", "AUD", &config::client_audience,
                "refuse client tokens whose aud (a string or an array) does not name AUD"),
           text("client-issuer", "ISS", &config::client_issuer,
                "refuse client tokens whose iss is not ISS"),
           {.name = "allowed-origins",
            .value_name = "LIST",
            .help = "pages of other sites that may open /ws, /sse and /poll, besides the server's "
                    "own, and read /sse and /poll with their cookies (CORS): comma-separated "
                    "scheme://host[:port], a host may be *.name; * = any, without cookies "
                    "(default: none; a request without Origin is not a browser's and is admitted)",
            .read =
                [](const std::string& text, config& cfg) {
                  auto policy = parse_allowed_origins(text);
                  if (!policy) bad_flag("allowed-origins", policy.error);
                  cfg.allowed_origins_text = text;
                  cfg.allowed_origins = std::move(*policy.value);
                },
            .value = [](const config& c) { return c.allowed_origins_text; }},
           {.name = "allowed-hosts",
            .value_name = "LIST",
            .help = "comma-separated host names this server answers to (a port is ignored); a "
                    "request whose Host names another gets 421, except /healthz (default: any)",
            .read =
                [](const std::string& text, config& cfg) {
                  auto policy = parse_allowed_hosts(text);
                  if (!policy) bad_flag("allowed-hosts", policy.error);
                  cfg.allowed_hosts_text = text;
                  cfg.allowed_hosts = std::move(*policy.value);
                },
            .value = [](const config& c) { return c.allowed_hosts_text; }},
           text("tls-cert", "FILE", &config::tls_cert_file,
                "serve HTTPS and WSS with this PEM certificate chain (server certificate first); "
                "needs --tls-key; SIGHUP reads both files again"),
           text("tls-key", "FILE", &config::tls_key_file, "the PEM private key of --tls-cert"),
           {.name = "hsts",
            .value_name = "DURATION",
            .help = "with TLS, tell browsers to use only https for this long "
                    "(Strict-Transport-Security: max-age); 0 = do not send it",
            .read =
                [](const std::string& text, config& cfg) {
                  cfg.hsts = duration_value("hsts", text);
                  if (cfg.hsts.count() > 0 && cfg.hsts < std::chrono::seconds{1})
                    bad_flag("hsts", "max-age is whole seconds: give at least 1s, or 0 for none");
                },
            .value = [](const config& c) { return format_duration(c.hsts); },
            .has_default = true},
       }});

  table.push_back(
      {"Redis (several nodes)",
       {
           {.name = "redis",
            .value_name = "URL",
            .help = "share ids, history, kicks, sessions, presence and scheduled publishes with "
                    "other nodes through Redis: redis://[:PASSWORD@]HOST:PORT/DB, or "
                    "sentinel://HOST:PORT[,HOST:PORT...]/MASTER to follow failovers (default: "
                    "none, a single node)",
            .read =
                [](const std::string& text, config& cfg) {
                  auto url = parse_redis_url(text);
                  if (!url) bad_flag("redis", url.error);
                  cfg.redis = std::move(url.value);
                },
            // Every part, the password (from the URL or --redis-password-file) included.
            .value =
                [](const config& c) {
                  if (!c.redis) return std::string{};
                  const redis_url& u = *c.redis;
                  std::string all = fmt::format("{}:{} {} {} {} {}", u.host, u.port, u.user,
                                                u.password, u.db, u.master_name);
                  for (const auto& s : u.sentinels)
                    all += fmt::format(" {}:{}", s.host, s.port);
                  return all;
                }},
           secret_file("redis-password-file",
                       "read the password of the --redis URL from FILE (its first line), so that "
                       "it is not seen in ps; the URL then has none"),
       }});

  auto url_flag = [](std::string_view name, std::optional<http_url> config::*field,
                     std::string_view help) {
    return flag{
        .name = name,
        .value_name = "URL",
        .help = help,
        .read =
            [name, field](const std::string& text, config& cfg) {
              auto url = parse_http_url(text);
              if (!url) bad_flag(name, url.error);
              cfg.*field = std::move(url.value);
            },
        .value = [field](const config& c) { return c.*field ? (c.*field)->text : std::string{}; }};
  };
  table.push_back(
      {"Hooks (the shop's backend)",
       {
           url_flag("hook-url", &config::hook_url,
                    "POST session events (connect, disconnect, subscribe, unsubscribe) to this "
                    "http:// or https:// URL in batches, retried with back-off until accepted "
                    "(default: none)"),
           secret("hook-secret", "SECRET", &config::hook_secret,
                  "sign every hook body, event batches and connect-hook POSTs alike: "
                  "X-Ringcast-Signature: sha256=<hex HMAC-SHA256 of the body>"),
           secret_file("hook-secret-file",
                       "read the hook secret from FILE (its first line) instead, so that it is not "
                       "seen in ps"),
           // An empty list of certificates would mean "verify nothing": an impostor backend would
           // pass.
           {.name = "hook-ca",
            .value_name = "FILE",
            .help = "PEM certificates an https hook backend is verified against (never empty: "
                    "the backend's certificate is always checked)",
            .read =
                [](const std::string& text, config& cfg) {
                  if (text.empty())
                    bad_flag("hook-ca",
                             "expected a file of PEM certificates; an empty value would turn off "
                             "checking the backend's certificate");
                  cfg.hook_ca_file = text;
                },
            .value = [](const config& c) { return c.hook_ca_file; },
            .has_default = true},
           number("hook-batch", "N", &config::hook_batch, 1, 10'000, sighup::restart,
                  "events per hook POST at most"),
           // Checked against the tick only when there are hooks to time.
           duration("hook-flush", &config::hook_flush, sighup::restart, on_wheel::timeout,
                    "send a partial batch once its oldest event has waited this long",
                    [](const config& c) { return c.hook_url.has_value(); }),
           duration("hook-timeout", &config::hook_timeout, sighup::restart, on_wheel::timeout,
                    "a hook POST not answered by then counts as failed and is retried",
                    [](const config& c) {
                      return c.hook_url.has_value() || c.connect_hook.has_value();
                    }),
           url_flag("connect-hook", &config::connect_hook,
                    "ask this http:// or https:// URL before admitting each client: 200 admits "
                    "(the answer may set user and channels), 403 refuses (default: none)"),
           {.name = "connect-hook-fallback",
            .value_name = "MODE",
            .help = "deny or allow: when the connect hook does not answer within --hook-timeout, "
                    "deny the client (503 + Retry-After) or allow it",
            .read =
                [](const std::string& text, config& cfg) {
                  if (text != "deny" && text != "allow")
                    bad_flag("connect-hook-fallback", "expected deny or allow, got '" + text + "'");
                  cfg.connect_hook_fallback_allow = text == "allow";
                },
            .value =
                [](const config& c) {
                  return std::string(c.connect_hook_fallback_allow ? "allow" : "deny");
                },
            .has_default = true},
           number("connect-hook-concurrency", "N", &config::connect_hook_concurrency, 1, 100'000,
                  sighup::restart,
                  "connect-hook POSTs in flight at once per node; beyond, a connect gets 503 + "
                  "Retry-After whatever the fallback"),
           number("hook-queue", "N", &config::hook_queue, 1, no_limit, sighup::restart,
                  "hook events kept per event loop while the backend is down; the oldest are "
                  "dropped beyond it"),
       }});

  // The Pusher app's id and key appear in URL paths (/apps/{id}, /app/{key}) and the key in
  // "key:signature" auth strings: a plain word keeps both unambiguous.
  auto pusher_word = [](std::string_view name, std::string config::*field) {
    return [name, field](const std::string& text, config& cfg) {
      const bool word =
          !text.empty() && text.size() <= 128 && std::all_of(text.begin(), text.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_';
          });
      if (!word)
        bad_flag(name, fmt::format("expected 1-128 letters, digits, '-' or '_', got '{}'", text));
      cfg.*field = text;
    };
  };
  table.push_back(
      {"Pusher Channels door (docs/pusher.md)",
       {
           {.name = "pusher-app-id",
            .value_name = "ID",
            .help = "open the Pusher Channels door for this app id (with --pusher-key and "
                    "--pusher-secret; all three or none)",
            .read = pusher_word("pusher-app-id", &config::pusher_app_id),
            .value = [](const config& c) { return c.pusher_app_id; }},
           {.name = "pusher-key",
            .value_name = "KEY",
            .help = "the Pusher app key clients connect with (/app/KEY)",
            .read = pusher_word("pusher-key", &config::pusher_key),
            .value = [](const config& c) { return c.pusher_key; }},
           secret("pusher-secret", "SECRET", &config::pusher_secret,
                  "the Pusher app secret that signs channel auth, sign-in, HTTP API requests and "
                  "webhooks (default: $RINGCAST_PUSHER_SECRET)"),
           secret_file("pusher-secret-file",
                       "read the Pusher app secret from FILE (its first line) instead, so that it "
                       "is not seen in ps"),
           {.name = "pusher-client-events",
            .help = "let subscribers of private and presence channels send client-* events to "
                    "the channel's other members (off by default, as at Pusher)",
            .read = [](const std::string&, config& cfg) { cfg.pusher_client_events = true; },
            .value = [](const config& c) { return yes_no(c.pusher_client_events); }},
           {.name = "pusher-webhook-url",
            .value_name = "URLS",
            .help = "comma-separated http:// or https:// URLs that receive the Pusher app's "
                    "webhooks, signed with X-Pusher-Key and X-Pusher-Signature (default: none)",
            .read =
                [](const std::string& text, config& cfg) {
                  std::vector<http_url> urls;
                  for (const auto item : comma_list(text)) {
                    auto url = parse_http_url(item);
                    if (!url) bad_flag("pusher-webhook-url", url.error);
                    urls.push_back(std::move(*url.value));
                  }
                  if (urls.empty()) bad_flag("pusher-webhook-url", "expected at least one URL");
                  cfg.pusher_webhook_urls = std::move(urls);
                  cfg.pusher_webhook_urls_text = text;
                },
            .value = [](const config& c) { return c.pusher_webhook_urls_text; }},
       }});

  table.push_back(
      {"Promotions",
       {
           duration("max-spread", &config::max_spread, sighup::restart, on_wheel::no,
                    "the longest \"spread\" a publish may ask for (its messages reach each client "
                    "at its turn within that window); longer is refused 400"),
           number("max-scheduled", "N", &config::max_scheduled, 1, no_limit, sighup::restart,
                  "scheduled publishes that may wait at once; more get 429 too_many"),
           number("max-sticky", "N", &config::max_sticky, 1, no_limit, sighup::restart,
                  "sticky messages that may be in force at once; another sticky publish gets 429 "
                  "too_many"),
       }});

  table.push_back(
      {"Logging",
       {
           {.name = "log-level",
            .value_name = "LEVEL",
            .help = "info: every event worth knowing; warn: only what needs attention (SIGHUP "
                    "applies it)",
            .read =
                [](const std::string& text, config& cfg) {
                  if (text != "info" && text != "warn")
                    bad_flag("log-level", fmt::format("expected info or warn, got '{}'", text));
                  cfg.log = text == "warn" ? log_level::warn : log_level::info;
                },
            .value =
                [](const config& c) {
                  return std::string(c.log == log_level::warn ? "warn" : "info");
                },
            .has_default = true,
            .apply_live = copied_if(sighup::live, &config::log)},
       }});

  table.push_back(
      {"Upgrade in place",
       {
           {.name = "upgrade-binary",
            .value_name = "FILE",
            .help = "on SIGUSR2, upgrade in place to FILE (default: the path this binary was "
                    "started from); docs/operations.md#upgrading",
            .read = [](const std::string& text, config& cfg) { cfg.upgrade_binary = text; },
            .value = [](const config& c) { return c.upgrade_binary; },
            .apply_live = copied_if(sighup::live, &config::upgrade_binary)},
           duration("upgrade-check-timeout", &config::upgrade_check_timeout, sighup::restart,
                    on_wheel::no,
                    "the longest each check of the new binary (--version, --check-config) may take "
                    "before the upgrade is refused"),
           {.name = "check-config",
            .help = "read the settings and the files they name, say whether they would start, "
                    "and exit (SIGUSR2 runs it with the new binary first)",
            .read = [](const std::string&, config& cfg) { cfg.check_config = true; },
            .in_file = false},
           {.name = "upgrade-state-fd",
            .value_name = "N",
            .help = "internal: the upgraded process reads the old one's state from descriptor N",
            .read =
                [](const std::string& text, config& cfg) {
                  cfg.upgrade_state_fd =
                      static_cast<int>(number_value("upgrade-state-fd", text, 3, 1 << 30));
                },
            .in_file = false},
           {.name = "print-routes",
            .help = "print the HTTP routes (paths and methods) as JSON and exit; a test compares "
                    "them with docs/openapi.yaml",
            .read = [](const std::string&, config& cfg) { cfg.print_routes = true; },
            .in_file = false},
       }});
  return table;
}

}  // namespace

const std::vector<flag_group>& flag_table() {
  static const std::vector<flag_group> table = build_table();
  return table;
}

const flag* find_flag(std::string_view name) {
  for (const auto& group : flag_table()) {
    const auto found = std::find_if(group.flags.begin(), group.flags.end(),
                                    [name](const flag& f) { return f.name == name; });
    if (found != group.flags.end()) return &*found;
  }
  return nullptr;
}

}  // namespace ringcast
