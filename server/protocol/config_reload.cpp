#include "config_reload.hpp"

#include <algorithm>
#include <sstream>
#include <utility>

#include <fmt/format.h>

#include "client_auth.hpp"
#include "duration.hpp"
#include "parse_config.hpp"

namespace ringcast {

std::vector<std::string> settings_changed(const config& a, const config& b) {
  using text_of = std::function<std::string(const config&)>;
  auto duration = [](config::ms config::*field) {
    return text_of([field](const config& c) { return format_duration(c.*field); });
  };
  auto number = [](auto config::*field) {
    return text_of([field](const config& c) { return std::to_string(c.*field); });
  };
  auto text = [](std::string config::*field) {
    return text_of([field](const config& c) { return c.*field; });
  };
  const std::pair<const char*, text_of> settings[] = {
      {"listen",
       [](const config& c) { return c.listen_host + ':' + std::to_string(c.listen_port); }},
      {"threads", number(&config::threads)},
      {"poll-timeout", duration(&config::poll_timeout)},
      {"heartbeat", duration(&config::heartbeat)},
      {"idle-timeout", duration(&config::idle_timeout)},
      {"session-ttl", duration(&config::session_ttl)},
      {"handshake-timeout", duration(&config::handshake_timeout)},
      {"keepalive-timeout", duration(&config::keepalive_timeout)},
      {"write-timeout", duration(&config::write_timeout)},
      {"max-connection-age", duration(&config::max_connection_age)},
      {"drain", duration(&config::drain)},
      {"reconnect-delay", duration(&config::reconnect_delay)},
      {"max-spread", duration(&config::max_spread)},
      {"tick-ms", duration(&config::tick)},
      {"wheel-slots", number(&config::wheel_slots)},
      {"history", number(&config::history)},
      {"max-queue", number(&config::max_queue)},
      {"max-body", number(&config::max_body)},
      {"max-connections", number(&config::max_connections)},
      {"max-sessions", number(&config::max_sessions)},
      {"max-sessions-per-user", number(&config::max_sessions_per_user)},
      {"max-poll-batch", number(&config::max_poll_batch)},
      {"max-scheduled", number(&config::max_scheduled)},
      {"max-connections-per-ip", number(&config::max_connections_per_ip)},
      {"connect-rate-per-ip", number(&config::connect_rate_per_ip)},
      {"trusted-proxy", text(&config::trusted_proxy)},
      {"client-message-rate", number(&config::client_message_rate)},
      {"max-sticky", number(&config::max_sticky)},
      {"compression", [](const config& c) { return std::string(c.compression ? "on" : "off"); }},
      {"compress-min-bytes", number(&config::compress_min_bytes)},
      {"admin-token",
       [](const config& c) { return c.admin_token_generated ? std::string{} : c.admin_token; }},
      {"web-root", text(&config::web_root)},
      {"redis",
       [](const config& c) {
         if (!c.redis) return std::string{};
         const redis_url& u = *c.redis;
         std::string all = fmt::format("{}:{} {} {} {} {}", u.host, u.port, u.user, u.password,
                                       u.db, u.master_name);
         for (const auto& s : u.sentinels)
           all += fmt::format(" {}:{}", s.host, s.port);
         return all;
       }},
      {"client-secret", text(&config::client_secret)},
      {"client-public-key", text(&config::client_public_key_pem)},
      {"require-exp",
       [](const config& c) { return std::string(c.require_exp ? "true" : "false"); }},
      {"client-audience", text(&config::client_audience)},
      {"client-issuer", text(&config::client_issuer)},
      {"demo", [](const config& c) { return std::string(c.demo ? "true" : "false"); }},
      {"allowed-origins", text(&config::allowed_origins_text)},
      {"allowed-hosts", text(&config::allowed_hosts_text)},
      {"tls-cert", text(&config::tls_cert_file)},
      {"tls-key", text(&config::tls_key_file)},
      {"hsts", duration(&config::hsts)},
      {"log-level",
       [](const config& c) { return std::string(c.log == log_level::warn ? "warn" : "info"); }},
      {"hook-url", [](const config& c) { return c.hook_url ? c.hook_url->text : std::string{}; }},
      {"hook-secret", text(&config::hook_secret)},
      {"hook-ca", text(&config::hook_ca_file)},
      {"hook-batch", number(&config::hook_batch)},
      {"hook-flush", duration(&config::hook_flush)},
      {"hook-timeout", duration(&config::hook_timeout)},
      {"hook-queue", number(&config::hook_queue)},
      {"connect-hook",
       [](const config& c) { return c.connect_hook ? c.connect_hook->text : std::string{}; }},
      {"connect-hook-fallback",
       [](const config& c) {
         return std::string(c.connect_hook_fallback_allow ? "allow" : "deny");
       }},
      {"connect-hook-concurrency", number(&config::connect_hook_concurrency)},
      {"upgrade-binary", text(&config::upgrade_binary)},
  };
  std::vector<std::string> changed;
  for (const auto& [name, value] : settings)
    if (value(a) != value(b)) changed.emplace_back(name);
  return changed;
}

config with_live_settings(const config& running, const config& fresh) {
  config next = running;
  next.log = fresh.log;
  next.max_connections = fresh.max_connections;
  next.max_body = fresh.max_body;
  next.max_queue = fresh.max_queue;
  next.handshake_timeout = fresh.handshake_timeout;
  next.keepalive_timeout = fresh.keepalive_timeout;
  next.max_connections_per_ip = fresh.max_connections_per_ip;
  next.connect_rate_per_ip = fresh.connect_rate_per_ip;
  next.trusted_proxy = fresh.trusted_proxy;
  next.trusted_proxies = fresh.trusted_proxies;
  next.client_message_rate = fresh.client_message_rate;
  next.write_timeout = fresh.write_timeout;
  next.upgrade_binary = fresh.upgrade_binary;
  if (!fresh.admin_token_generated) {
    next.admin_token = fresh.admin_token;
    next.admin_token_generated = false;
  }
  return next;
}

reload_report check_reload(const config& running, int argc, const char* const* argv,
                           const std::function<const char*(const char*)>& getenv) {
  std::ostringstream out, err;
  auto fresh = parse_config(argc, argv, out, err, getenv);
  reload_report report;
  if (!fresh.cfg) {
    std::string why = err.str();
    while (!why.empty() && why.back() == '\n')
      why.pop_back();
    if (why.starts_with("ringcast: ")) why.erase(0, 10);
    report.lines.push_back(fmt::format("SIGHUP: {}; the running settings stay", why));
    return report;
  }
  report.ok = true;
  const auto changed = settings_changed(running, *fresh.cfg);
  if (changed.empty()) {
    report.lines.emplace_back("SIGHUP: settings read again: nothing changed");
    return report;
  }
  for (const auto& name : changed) {
    if (std::find(live_settings.begin(), live_settings.end(), name) != live_settings.end()) {
      report.lines.push_back(fmt::format("SIGHUP: '{}' changed: applied", name));
      report.apply = with_live_settings(running, *fresh.cfg);
    } else {
      report.lines.push_back(fmt::format(
          "SIGHUP: '{}' changed but cannot change while running; it takes effect at the next "
          "restart",
          name));
    }
  }
  return report;
}

}  // namespace ringcast
