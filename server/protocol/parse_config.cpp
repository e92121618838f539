#include "parse_config.hpp"

#include <dirent.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <ostream>
#include <stdexcept>
#include <string_view>
#include <thread>

#include <fmt/format.h>
#include <boost/program_options.hpp>
#include <boost/url/ipv4_address.hpp>
#include <boost/url/ipv6_address.hpp>

#include "config_file.hpp"
#include "config_flags.hpp"
#include "config_secrets.hpp"
#include "duration.hpp"
#include "flag_error.hpp"
#include "flag_parser_error.hpp"
#include "handover_version.hpp"
#include "http_url.hpp"
#include "redis_url.hpp"
#include "version.hpp"

namespace ringcast {
namespace {

namespace po = boost::program_options;

constexpr const char* help_hint = "run 'ringcast --help' for the list of flags";

config::ms duration_flag(const po::variables_map& vm, const char* flag) {
  auto d = parse_duration(text_of(vm, flag));
  if (!d) bad_flag(flag, d.error);
  return *d.value;
}

std::uint64_t number_flag(const po::variables_map& vm, const char* flag, std::uint64_t lo,
                          std::uint64_t hi) {
  const std::string& text = text_of(vm, flag);
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec == std::errc{} && end == text.data() + text.size() && n >= lo && n <= hi) return n;
  if (hi == std::numeric_limits<std::uint64_t>::max())
    bad_flag(flag, fmt::format("expected a whole number of at least {}, got '{}'", lo, text));
  bad_flag(flag, fmt::format("expected a whole number from {} to {}, got '{}'", lo, hi, text));
}

// "IPv4:PORT" or "[IPv6]:PORT"; host names are refused because the server binds, not resolves.
void parse_listen(const std::string& text, config& cfg) {
  auto fail = [&] {
    bad_flag("listen", fmt::format("expected IPv4:PORT or [IPv6]:PORT, got '{}'", text));
  };
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) fail();
  std::string_view host = std::string_view{text}.substr(0, colon);
  const std::string_view port = std::string_view{text}.substr(colon + 1);

  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    if (!boost::urls::parse_ipv6_address(host)) fail();
  } else if (!boost::urls::parse_ipv4_address(host)) {
    fail();
  }
  std::uint16_t port_number = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), port_number);
  if (port.empty() || ec != std::errc{} || end != port.data() + port.size()) fail();

  cfg.listen_host = host;
  cfg.listen_port = port_number;
}

void resolve_tls(const po::variables_map& vm, config& cfg) {
  const bool cert = vm.count("tls-cert") > 0, key = vm.count("tls-key") > 0;
  if (cert != key) bad_flag(cert ? "tls-cert" : "tls-key", "needs --tls-cert and --tls-key both");
  cfg.hsts = duration_flag(vm, "hsts");
  if (cfg.hsts.count() > 0 && cfg.hsts < std::chrono::seconds{1})
    bad_flag("hsts", "max-age is whole seconds: give at least 1s, or 0 for none");
  if (!cert) return;
  cfg.tls_cert_file = text_of(vm, "tls-cert");
  cfg.tls_key_file = text_of(vm, "tls-key");
  cfg.secret_files.push_back({"tls-key", cfg.tls_key_file});
  // OpenSSL reports a missing file as "error 0x80000002"; say it in words first.
  for (const char* flag : {"tls-cert", "tls-key"}) {
    const std::string& path = text_of(vm, flag);
    if (std::ifstream probe(path); !probe)
      bad_flag(flag, fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  }
}

void resolve_browser_policies(const po::variables_map& vm, config& cfg) {
  if (vm.count("allowed-origins")) {
    cfg.allowed_origins_text = text_of(vm, "allowed-origins");
    auto policy = parse_allowed_origins(cfg.allowed_origins_text);
    if (!policy) bad_flag("allowed-origins", policy.error);
    cfg.allowed_origins = std::move(*policy.value);
  }
  if (vm.count("allowed-hosts")) {
    cfg.allowed_hosts_text = text_of(vm, "allowed-hosts");
    auto policy = parse_allowed_hosts(cfg.allowed_hosts_text);
    if (!policy) bad_flag("allowed-hosts", policy.error);
    cfg.allowed_hosts = std::move(*policy.value);
  }
}

void resolve_hooks(const po::variables_map& vm, config& cfg) {
  constexpr auto no_limit = std::numeric_limits<std::size_t>::max();
  cfg.hook_batch = number_flag(vm, "hook-batch", 1, 10'000);
  cfg.hook_queue = number_flag(vm, "hook-queue", 1, no_limit);
  cfg.hook_flush = duration_flag(vm, "hook-flush");
  cfg.hook_timeout = duration_flag(vm, "hook-timeout");
  if (vm.count("hook-url")) {
    auto url = parse_http_url(text_of(vm, "hook-url"));
    if (!url) bad_flag("hook-url", url.error);
    cfg.hook_url = std::move(url.value);
  }
  cfg.hook_ca_file = text_of(vm, "hook-ca");
  // An empty list of certificates would mean "verify nothing": an impostor backend would pass.
  if (cfg.hook_ca_file.empty())
    bad_flag("hook-ca",
             "expected a file of PEM certificates; an empty value would turn off checking the "
             "backend's certificate");
  if (vm.count("connect-hook")) {
    auto url = parse_http_url(text_of(vm, "connect-hook"));
    if (!url) bad_flag("connect-hook", url.error);
    cfg.connect_hook = std::move(url.value);
  }
  const std::string& fallback = text_of(vm, "connect-hook-fallback");
  if (fallback != "deny" && fallback != "allow")
    bad_flag("connect-hook-fallback", "expected deny or allow, got '" + fallback + "'");
  cfg.connect_hook_fallback_allow = fallback == "allow";
  resolve_hook_secret(vm, cfg);
  cfg.connect_hook_concurrency = number_flag(vm, "connect-hook-concurrency", 1, 100'000);
}

// Timeouts run on the wheel, which cannot measure anything shorter than one tick.
void check_timeouts(const config& cfg) {
  struct timeout {
    const char* flag;
    config::ms value;
    bool zero_allowed;    // 0 turns it off (max-connection-age, keep-alive) or makes it immediate
                          // (drain)
    bool applies = true;  // the hook timeouts only with --hook-url
  };
  const timeout timeouts[] = {{"poll-timeout", cfg.poll_timeout, false},
                              {"heartbeat", cfg.heartbeat, false},
                              {"idle-timeout", cfg.idle_timeout, false},
                              {"session-ttl", cfg.session_ttl, false},
                              {"handshake-timeout", cfg.handshake_timeout, false},
                              {"keepalive-timeout", cfg.keepalive_timeout, true},
                              {"write-timeout", cfg.write_timeout, false},
                              {"max-connection-age", cfg.max_connection_age, true},
                              {"drain", cfg.drain, true},
                              {"hook-flush", cfg.hook_flush, false, cfg.hook_url.has_value()},
                              {"hook-timeout", cfg.hook_timeout, false,
                               cfg.hook_url.has_value() || cfg.connect_hook.has_value()}};
  for (const auto& t : timeouts) {
    if (!t.applies) continue;
    if (t.value.count() == 0) {
      if (!t.zero_allowed) bad_flag(t.flag, "must be more than 0");
    } else if (t.value < cfg.tick) {
      throw flag_error(fmt::format(
          "--tick-ms {} is longer than --{} {}; every timeout must be at least one tick",
          cfg.tick.count(), t.flag, format_duration(t.value)));
    }
  }
}

// A --web-root that cannot be listed would serve 404 for every page without a word: refuse it.
void check_web_root(const std::string& dir) {
  DIR* listing = ::opendir(dir.c_str());
  if (!listing)
    bad_flag("web-root",
             fmt::format("'{}' is not a readable directory: {}", dir, std::strerror(errno)));
  ::closedir(listing);
}

config build_config(const po::variables_map& vm,
                    const std::function<const char*(const char*)>& getenv) {
  config cfg;
  parse_listen(text_of(vm, "listen"), cfg);
  cfg.threads = static_cast<unsigned>(number_flag(vm, "threads", 0, 1024));
  if (cfg.threads == 0) cfg.threads = std::max(1u, std::thread::hardware_concurrency());

  cfg.poll_timeout = duration_flag(vm, "poll-timeout");
  cfg.heartbeat = duration_flag(vm, "heartbeat");
  cfg.idle_timeout = duration_flag(vm, "idle-timeout");
  cfg.session_ttl = duration_flag(vm, "session-ttl");
  cfg.handshake_timeout = duration_flag(vm, "handshake-timeout");
  cfg.keepalive_timeout = duration_flag(vm, "keepalive-timeout");
  cfg.write_timeout = duration_flag(vm, "write-timeout");
  cfg.max_connection_age = duration_flag(vm, "max-connection-age");
  cfg.drain = duration_flag(vm, "drain");
  cfg.reconnect_delay = duration_flag(vm, "reconnect-delay");
  cfg.max_spread = duration_flag(vm, "max-spread");

  cfg.tick = config::ms{number_flag(vm, "tick-ms", 1, 60'000)};
  cfg.wheel_slots =
      std::bit_ceil(static_cast<std::uint32_t>(number_flag(vm, "wheel-slots", 16, 65'536)));

  constexpr auto no_limit = std::numeric_limits<std::size_t>::max();
  cfg.history = number_flag(vm, "history", 1, no_limit);
  cfg.max_queue = number_flag(vm, "max-queue", 1, no_limit);
  cfg.max_body = number_flag(vm, "max-body", 1, no_limit);
  cfg.max_connections = number_flag(vm, "max-connections", 1, no_limit);
  cfg.max_sessions = number_flag(vm, "max-sessions", 0, no_limit);
  cfg.max_sessions_per_user = number_flag(vm, "max-sessions-per-user", 1, no_limit);
  cfg.max_poll_batch = number_flag(vm, "max-poll-batch", 1, no_limit);
  cfg.max_scheduled = number_flag(vm, "max-scheduled", 1, no_limit);
  cfg.max_connections_per_ip = number_flag(vm, "max-connections-per-ip", 0, no_limit);
  cfg.connect_rate_per_ip =
      static_cast<std::uint32_t>(number_flag(vm, "connect-rate-per-ip", 0, 1'000'000));
  if (vm.count("trusted-proxy")) {
    cfg.trusted_proxy = text_of(vm, "trusted-proxy");
    auto ranges = parse_address_ranges(cfg.trusted_proxy);
    if (!ranges) bad_flag("trusted-proxy", ranges.error);
    cfg.trusted_proxies = std::move(*ranges.value);
  }
  cfg.client_message_rate =
      static_cast<std::uint32_t>(number_flag(vm, "client-message-rate", 0, 1'000'000));
  cfg.max_sticky = number_flag(vm, "max-sticky", 1, no_limit);
  const std::string& compression = text_of(vm, "compression");
  if (compression != "on" && compression != "off")
    bad_flag("compression", "expected on or off, got '" + compression + "'");
  cfg.compression = compression == "on";
  cfg.compress_min_bytes = number_flag(vm, "compress-min-bytes", 0, no_limit);

  resolve_admin_token(vm, getenv, cfg);
  if (vm.count("web-root")) {
    cfg.web_root = text_of(vm, "web-root");
    check_web_root(cfg.web_root);
  }
  if (vm.count("redis")) {
    auto url = parse_redis_url(text_of(vm, "redis"));
    if (!url) bad_flag("redis", url.error);
    cfg.redis = std::move(url.value);
  }
  resolve_redis_password(vm, cfg);
  resolve_client_tokens(vm, getenv, cfg);
  cfg.demo = vm.count("demo") > 0;
  resolve_browser_policies(vm, cfg);
  resolve_tls(vm, cfg);
  if (const auto& level = text_of(vm, "log-level"); level == "warn") {
    cfg.log = log_level::warn;
  } else if (level != "info") {
    bad_flag("log-level", fmt::format("expected info or warn, got '{}'", level));
  }
  resolve_hooks(vm, cfg);
  if (vm.count("upgrade-binary")) cfg.upgrade_binary = text_of(vm, "upgrade-binary");
  cfg.check_config = vm.count("check-config") > 0;
  if (vm.count("upgrade-state-fd"))
    cfg.upgrade_state_fd = static_cast<int>(number_flag(vm, "upgrade-state-fd", 3, 1 << 30));

  check_timeouts(cfg);
  return cfg;
}

// Stores the settings of --config FILE under those of the command line, which win (program_options
// keeps the first value stored). Returns, by name, the file's line of each setting it stored.
std::map<std::string, config_file_entry> merge_config_file(const po::options_description& flags,
                                                           po::variables_map& vm) {
  auto kind_of = [&flags](std::string_view name) {
    if (name == "help" || name == "version" || name == "config" || name == "check-config" ||
        name == "upgrade-state-fd")
      return setting_kind::not_allowed;
    const auto* flag = flags.find_nothrow(std::string(name), false);
    if (!flag) return setting_kind::unknown;
    return flag->semantic()->max_tokens() == 0 ? setting_kind::switch_ : setting_kind::value;
  };
  auto entries = read_config_file(text_of(vm, "config"), kind_of);
  if (!entries) throw flag_error(entries.error);
  po::parsed_options from_file(&flags);
  std::map<std::string, config_file_entry> origin;
  for (auto& entry : *entries.value) {
    if (vm.count(entry.name) && !vm[entry.name].defaulted()) continue;
    std::vector<std::string> value;
    if (kind_of(entry.name) == setting_kind::value) value.push_back(entry.value);
    from_file.options.emplace_back(entry.name, std::move(value));
    origin.emplace(entry.name, std::move(entry));
  }
  po::store(from_file, vm);
  return origin;
}

// Whether the file sets a secret itself (rather than naming a file that holds it): the file is then
// as secret as the secret, and checked like the secret files at start-up.
bool holds_a_secret(const std::map<std::string, config_file_entry>& from_file) {
  for (const char* name : {"admin-token", "client-secret", "hook-secret"})
    if (from_file.count(name)) return true;
  const auto redis = from_file.find("redis");  // a password in the URL: user:password@host
  return redis != from_file.end() && redis->second.value.find('@') != std::string::npos;
}

}  // namespace

config_outcome parse_config(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
                            const std::function<const char*(const char*)>& getenv) {
  const po::options_description flags = describe_flags();
  // No abbreviations: "--heart" silently meaning "--heartbeat" would hide typos in scripts.
  constexpr int style =
      po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  std::map<std::string, config_file_entry> from_file;
  std::string file;
  try {
    const auto parsed = po::command_line_parser(argc, argv).options(flags).style(style).run();
    // Without a positional description, program_options passes stray words through silently.
    const auto stray = po::collect_unrecognized(parsed.options, po::include_positional);
    if (!stray.empty())
      throw flag_error(fmt::format("unexpected argument '{}'; {}", stray.front(), help_hint));
    po::variables_map vm;
    po::store(parsed, vm);
    if (vm.count("help")) {
      out << "Usage: ringcast [flags]\n\n"
             "A long-connection push server: WebSocket, Server-Sent Events and long-poll.\n"
             "DURATION is whole seconds (25) or a number with a unit: 500ms, 25s, 2m, 1h.\n\n"
          << help_text();
      return {std::nullopt, 0};
    }
    if (vm.count("version")) {
      // The second line tells an upgrading server whether this binary reads its state.
      out << "ringcast " << project_version << "\nstate format " << handover_format << "\n";
      return {std::nullopt, 0};
    }
    if (vm.count("config")) {
      file = text_of(vm, "config");
      from_file = merge_config_file(flags, vm);
    }
    config cfg = build_config(vm, getenv);
    cfg.config_file = file;
    if (holds_a_secret(from_file)) cfg.secret_files.push_back({"config", file});
    return {std::move(cfg), 0};
  } catch (const po::unknown_option& e) {
    err << fmt::format("ringcast: unknown flag '{}'; {}\n", e.get_option_name(), help_hint);
  } catch (const po::multiple_occurrences& e) {
    err << fmt::format("ringcast: {}: given more than once\n", e.get_option_name());
  } catch (const po::error& e) {
    err << fmt::format("ringcast: {}; {}\n", flag_parser_error(e, argc, argv), help_hint);
  } catch (const flag_error& e) {
    if (const auto entry = from_file.find(e.flag); entry != from_file.end()) {
      err << fmt::format("ringcast: {}:{}: {}: {}\n", file, entry->second.line, e.flag, e.why);
    } else {
      err << fmt::format("ringcast: {}\n", e.what());
    }
  }
  return {std::nullopt, 2};
}

}  // namespace ringcast
