#include "config_flags.hpp"

#include <sstream>
#include <string>

#include "config.hpp"
#include "duration.hpp"

namespace ringcast {

namespace po = boost::program_options;

namespace {

// --help's layout: the flag and its value in the first column, the description wrapped at word
// boundaries in the second (Boost's own layout splits long words such as URLs across lines).
constexpr std::size_t description_column = 30;
constexpr std::size_t line_width = 80;

// Appends `text` wrapped to the description column, never splitting a word.
void append_description(std::string& out, std::string_view text) {
  std::size_t used = description_column;
  bool line_empty = true;
  std::istringstream words{std::string(text)};
  for (std::string word; words >> word;) {
    if (!line_empty && used + 1 + word.size() > line_width) {
      out += '\n' + std::string(description_column, ' ');
      used = description_column;
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++used;
    }
    out += word;
    used += word.size();
    line_empty = false;
  }
  out += '\n';
}

}  // namespace

// One options_description per topic, in --help's order. A new flag goes into its topic's group.
std::vector<flag_group> describe_flag_groups() {
  const config d;
  auto text = [](std::string name, std::string fallback) {
    return po::value<std::string>()->value_name(std::move(name))->default_value(fallback);
  };
  auto duration = [&](config::ms fallback) { return text("DURATION", format_duration(fallback)); };
  auto number = [&](std::string name, auto fallback) {
    return text(std::move(name), std::to_string(fallback));
  };
  auto file = [] { return po::value<std::string>()->value_name("FILE"); };
  std::vector<flag_group> groups;

  po::options_description general;
  general.add_options()                          //
      ("help,h", "print this help and exit")     //
      ("version", "print the version and exit")  //
      ("config", file(),
       "read settings from FILE: one 'name = value' a line with the names of these flags; "
       "a flag given on the command line overrides the file (docs/operations.md#config-file)");
  groups.push_back({"General", general});

  po::options_description listening;
  listening.add_options()  //
      ("listen", text("HOST:PORT", d.listen_host + ":" + std::to_string(d.listen_port)),
       "address to serve on: IPv4:PORT or [IPv6]:PORT; port 0 picks a free one")       //
      ("threads", number("N", d.threads), "event-loop threads; 0 = one per CPU core")  //
      ("web-root", po::value<std::string>()->value_name("DIR"),
       "serve the web pages from DIR instead of the copy built into the binary")  //
      ("demo",
       "enable demo-only routes: POST /demo/token mints client tokens (with --client-secret)")  //
      ("trusted-proxy", po::value<std::string>()->value_name("CIDRS"),
       "comma-separated networks (10.0.0.0/8,::1) whose X-Forwarded-For names the client (the "
       "last hop not among them); from any other peer the header is ignored (default: none)");
  groups.push_back({"Listening", listening});

  po::options_description timeouts;
  timeouts.add_options()  //
      ("poll-timeout", duration(d.poll_timeout),
       "a held long-poll with nothing to send is answered reconnect/timeout after this")  //
      ("heartbeat", duration(d.heartbeat),
       "send a WebSocket ping / SSE comment after this long without traffic")  //
      ("idle-timeout", duration(d.idle_timeout),
       "close a connection after this long without client activity")  //
      ("session-ttl", duration(d.session_ttl),
       "keep a session without a connection this long, for reconnects to resume")  //
      ("handshake-timeout", duration(d.handshake_timeout),
       "close a TCP connection that has not sent a whole HTTP request by then")  //
      ("keepalive-timeout", duration(d.keepalive_timeout),
       "close a keep-alive connection idle this long between requests (announced in "
       "Keep-Alive: timeout=N); 0 = close after every response")  //
      ("write-timeout", duration(d.write_timeout),
       "close a connection whose reply, long-poll answer or queued WebSocket/SSE data is not "
       "fully written this long after it started")  //
      ("max-connection-age", duration(d.max_connection_age),
       "ask a WebSocket or SSE stream to reconnect (rebalance) after this long; 0 = never")  //
      ("drain", duration(d.drain),
       "on SIGTERM/SIGINT, spread the clients' reconnects over this long, then exit")  //
      ("reconnect-delay", duration(d.reconnect_delay),
       "centre of the jittered retry_ms told to clients that should reconnect")  //
      ("tick-ms", number("N", d.tick.count()),
       "timing-wheel tick in milliseconds (1-60000): how late a timeout may fire")  //
      ("wheel-slots", number("N", d.wheel_slots),
       "slots per timing-wheel level (16-65536, rounded up to a power of two)");
  groups.push_back({"Timeouts", timeouts});

  po::options_description limits;
  limits.add_options()                                                                     //
      ("history", number("N", d.history), "messages retained so that clients can resume")  //
      ("max-queue", number("N", d.max_queue),
       "messages queued per connection before it is closed as slow")                    //
      ("max-body", number("BYTES", d.max_body), "largest admin request body accepted")  //
      ("max-connections", number("N", d.max_connections),
       "open TCP connections beyond which new ones get 503 overloaded")  //
      ("max-connections-per-ip", number("N", d.max_connections_per_ip),
       "client connections (/ws, /sse, held /poll) one address may hold open; more get 503 "
       "overloaded; 0 = no limit")  //
      ("connect-rate-per-ip", number("N", d.connect_rate_per_ip),
       "connects to /ws, /sse, /poll per second per address, in bursts of N; more get 429 "
       "too_many with Retry-After; 0 = no limit")  //
      ("client-message-rate", number("N", d.client_message_rate),
       "frames per second a WebSocket client may send, in bursts of 2N; beyond, the "
       "connection is closed with 1008; 0 = no limit")  //
      ("max-sessions", number("N", d.max_sessions),
       "sessions held at once; a connect that would create one more gets 503 overloaded "
       "(0 = 4 x --max-connections)")  //
      ("max-sessions-per-user", number("N", d.max_sessions_per_user),
       "sessions of one user; a new one first drops the user's oldest session without a "
       "connection, else gets 429 too_many")  //
      ("max-poll-batch", number("N", d.max_poll_batch),
       "messages in one long-poll reply at most (and about 1 MiB); more owed: \"more\": true");

  groups.push_back({"Limits", limits});

  po::options_description compression;
  compression.add_options()  //
      ("compression", text("MODE", d.compression ? "on" : "off"),
       "on or off: WebSocket permessage-deflate when a client offers it (each message "
       "compressed once)")  //
      ("compress-min-bytes", number("BYTES", d.compress_min_bytes),
       "messages shorter than this are sent uncompressed (compressing them does not pay)");
  groups.push_back({"Compression", compression});

  po::options_description auth;
  auth.add_options()  //
      ("admin-token", po::value<std::string>()->value_name("TOKEN"),
       "bearer token for the admin API (default: $RINGCAST_ADMIN_TOKEN, else a random one, "
       "logged at start-up)")  //
      ("admin-token-file", file(),
       "read the admin token from FILE (its first line), so that it is not seen in ps")  //
      ("client-secret", po::value<std::string>()->value_name("SECRET"),
       "require HS256 client tokens signed with SECRET on /ws, /sse and /poll "
       "(default: $RINGCAST_CLIENT_SECRET; neither: clients are not authenticated)")  //
      ("client-secret-file", file(),
       "read the HS256 client secret from FILE (its first line) instead")  //
      ("client-public-key", file(),
       "require client tokens signed by the key of this PEM public key: RS256 for an RSA key, "
       "ES256 for an EC P-256 key")                                          //
      ("require-exp", "refuse client tokens without an exp (expiry) claim")  //
      ("client-audience", po::value<std::string>()->value_name("AUD"),
       "refuse client tokens whose aud (a string or an array) does not name AUD")  //
      ("client-issuer", po::value<std::string>()->value_name("ISS"),
       "refuse client tokens whose iss is not ISS")  //
      ("allowed-origins", po::value<std::string>()->value_name("LIST"),
       "pages of other sites that may open /ws, /sse and /poll, besides the server's own: "
       "comma-separated scheme://host[:port], a host may be *.name; * = any (default: none; a "
       "request without Origin is not a browser's and is admitted)")  //
      ("allowed-hosts", po::value<std::string>()->value_name("LIST"),
       "comma-separated host names this server answers to (a port is ignored); a request whose "
       "Host names another gets 421, except /healthz (default: any)")  //
      ("tls-cert", file(),
       "serve HTTPS and WSS with this PEM certificate chain (server certificate first); "
       "needs --tls-key; SIGHUP reads both files again")        //
      ("tls-key", file(), "the PEM private key of --tls-cert")  //
      ("hsts", duration(d.hsts),
       "with TLS, tell browsers to use only https for this long (Strict-Transport-Security: "
       "max-age); 0 = do not send it");
  groups.push_back({"Authentication and TLS", auth});

  po::options_description redis;
  redis.add_options()  //
      ("redis", po::value<std::string>()->value_name("URL"),
       "share ids, history, kicks, sessions, presence and scheduled publishes with other nodes "
       "through Redis: redis://[:PASSWORD@]HOST:PORT/DB, or "
       "sentinel://HOST:PORT[,HOST:PORT...]/MASTER to follow failovers (default: none, a "
       "single node)")  //
      ("redis-password-file", file(),
       "read the password of the --redis URL from FILE (its first line), so that it is not "
       "seen in ps; the URL then has none");
  groups.push_back({"Redis (several nodes)", redis});

  po::options_description hooks;
  hooks.add_options()  //
      ("hook-url", po::value<std::string>()->value_name("URL"),
       "POST session events (connect, disconnect, subscribe, unsubscribe) to this http:// or "
       "https:// URL in batches, retried with back-off until accepted (default: none)")  //
      ("hook-secret", po::value<std::string>()->value_name("SECRET"),
       "sign every hook body, event batches and connect-hook POSTs alike: X-Ringcast-Signature: "
       "sha256=<hex HMAC-SHA256 of the body>")  //
      ("hook-secret-file", file(),
       "read the hook secret from FILE (its first line) instead, so that it is not seen in ps")  //
      ("hook-ca", text("FILE", d.hook_ca_file),
       "PEM certificates an https hook backend is verified against (never empty: the "
       "backend's certificate is always checked)")                               //
      ("hook-batch", number("N", d.hook_batch), "events per hook POST at most")  //
      ("hook-flush", duration(d.hook_flush),
       "send a partial batch once its oldest event has waited this long")  //
      ("hook-timeout", duration(d.hook_timeout),
       "a hook POST not answered by then counts as failed and is retried")  //
      ("connect-hook", po::value<std::string>()->value_name("URL"),
       "ask this http:// or https:// URL before admitting each client: 200 admits (the answer "
       "may set user and channels), 403 refuses (default: none)")  //
      ("connect-hook-fallback", text("MODE", "deny"),
       "deny or allow: when the connect hook does not answer within --hook-timeout, deny "
       "the client (503 + Retry-After) or allow it")  //
      ("connect-hook-concurrency", number("N", d.connect_hook_concurrency),
       "connect-hook POSTs in flight at once per node; beyond, a connect gets 503 + Retry-After "
       "whatever the fallback")  //
      ("hook-queue", number("N", d.hook_queue),
       "hook events kept per event loop while the backend is down; the oldest are dropped "
       "beyond it");
  groups.push_back({"Hooks (the shop's backend)", hooks});

  po::options_description promotions;
  promotions.add_options()  //
      ("max-spread", duration(d.max_spread),
       "the longest \"spread\" a publish may ask for (its messages reach each client at its "
       "turn within that window); longer is refused 400")  //
      ("max-scheduled", number("N", d.max_scheduled),
       "scheduled publishes that may wait at once; more get 429 too_many")  //
      ("max-sticky", number("N", d.max_sticky),
       "sticky messages that may be in force at once; another sticky publish gets 429 "
       "too_many");
  groups.push_back({"Promotions", promotions});

  po::options_description logging;
  logging.add_options()  //
      ("log-level", text("LEVEL", "info"),
       "info: every event worth knowing; warn: only what needs attention (SIGHUP applies it)");
  groups.push_back({"Logging", logging});

  po::options_description upgrade;
  upgrade.add_options()  //
      ("upgrade-binary", file(),
       "on SIGUSR2, upgrade in place to FILE (default: the path this binary was started from); "
       "docs/operations.md#upgrading")  //
      ("check-config",
       "read the settings and the files they name, say whether they would start, and exit "
       "(SIGUSR2 runs it with the new binary first)")  //
      ("upgrade-state-fd", po::value<std::string>()->value_name("N"),
       "internal: the upgraded process reads the old one's state from descriptor N");
  groups.push_back({"Upgrade in place", upgrade});
  return groups;
}

po::options_description describe_flags() {
  po::options_description flags("Flags");
  for (const auto& group : describe_flag_groups())
    flags.add(group.flags);
  return flags;
}

std::string help_text() {
  std::string out;
  for (const auto& group : describe_flag_groups()) {
    out += group.topic + ":\n";
    for (const auto& option : group.flags.options()) {
      std::string head = "  " + option->format_name();
      if (const auto parameter = option->format_parameter(); !parameter.empty())
        head += " " + parameter;
      out += head;
      if (head.size() + 1 < description_column) {
        out += std::string(description_column - head.size(), ' ');
      } else {
        out += '\n' + std::string(description_column, ' ');
      }
      append_description(out, option->description());
    }
    out += '\n';
  }
  return out;
}

}  // namespace ringcast
