#include "connection_context.hpp"

#include <algorithm>

namespace ringcast {

connection_settings connection_settings::from(const config& cfg) {
  connection_settings s;
  s.handshake_timeout = cfg.handshake_timeout;
  s.keepalive_timeout = cfg.keepalive_timeout;
  s.write_timeout = cfg.write_timeout;
  s.drain = cfg.drain;
  s.max_body = cfg.max_body;
  s.max_queue = cfg.max_queue;
  s.max_spread = cfg.max_spread;
  s.web_root = cfg.web_root;
  s.admin_token = cfg.admin_token;
  if (cfg.demo) s.demo_secret = cfg.client_secret;
  s.connect_hook_fallback_allow = cfg.connect_hook_fallback_allow;
  s.allowed_origins = cfg.allowed_origins;
  s.allowed_hosts = cfg.allowed_hosts;
  s.compression = cfg.compression;
  s.compress_min_bytes = cfg.compress_min_bytes;
  s.connect_retry_after = std::max(std::chrono::seconds(1),
                                   std::chrono::ceil<std::chrono::seconds>(cfg.reconnect_delay));
  if (cfg.tls()) s.hsts = std::chrono::floor<std::chrono::seconds>(cfg.hsts);
  s.trusted_proxies = cfg.trusted_proxies;
  s.client_message_rate = cfg.client_message_rate;
  return s;
}

}  // namespace ringcast
