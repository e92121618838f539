#include "api/request_context.hpp"

#include <algorithm>

namespace ringcast {

connection_settings connection_settings::from(const config& cfg) {
  connection_settings s;
  static_cast<config&>(s) = cfg;
  if (cfg.demo) s.demo_secret = cfg.client_secret;
  s.connect_retry_after = std::max(std::chrono::seconds(1),
                                   std::chrono::ceil<std::chrono::seconds>(cfg.reconnect_delay));
  if (cfg.tls()) s.hsts_max_age = std::chrono::floor<std::chrono::seconds>(cfg.hsts);
  return s;
}

}  // namespace ringcast
