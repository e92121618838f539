#include "connection_context.hpp"

namespace ringcast {

connection_settings connection_settings::from(const config& cfg) {
  connection_settings s;
  s.handshake_timeout = cfg.handshake_timeout;
  s.keepalive_timeout = cfg.keepalive_timeout;
  s.drain = cfg.drain;
  s.max_body = cfg.max_body;
  s.max_queue = cfg.max_queue;
  s.web_root = cfg.web_root;
  s.admin_token = cfg.admin_token;
  if (cfg.demo) s.demo_secret = cfg.client_secret;
  return s;
}

}  // namespace ringcast
