// SIGHUP (systemctl reload; docs/operations.md#config-file): with --config the settings are read
// again and the live ones (those the flag table gives an `apply_live`) applied, the others named
// as needing a restart; with --tls-cert the certificate and key are read again (renewals).
#include <boost/asio/post.hpp>

#include "core/log.hpp"
#include "net/server.hpp"
#include "tls/tls_context.hpp"

namespace ringcast {

namespace asio = boost::asio;

// On loop 0.
void server::reload() {
  if (reread_) {
    auto report = reread_(running_);
    if (report.apply) {
      running_ = std::move(*report.apply);
      apply_live(running_);
    }
    for (const auto& line : report.lines) {
      if (report.ok && (line.ends_with("nothing changed") || line.ends_with("applied"))) {
        log_info("{}", line);
      } else {
        log_warn("{}", line);
      }
    }
  }
  reload_certificate();
}

// Where each live setting is read: the one list of who takes them.
void server::apply_live(const config& settings) {
  set_log_level(settings.log);
  {
    std::lock_guard lock(upgrade_.mutex);
    upgrade_.binary = settings.upgrade_binary;
  }
  connections_.set_max(settings.max_connections);
  addresses_.configure(
      {settings.max_connections_per_ip, settings.connect_rate_per_ip, settings.ipv6_prefix});
  every_.invoke_on_all([settings](event_loop& loop) { loop.apply_live(settings); });
}

std::shared_ptr<const tls_context> server::tls() const {
  std::lock_guard lock(tls_mutex_);
  return credentials_.tls;
}

void server::reload_certificate() {
  if (!tls()) {
    // With --config, the settings' lines say what SIGHUP did.
    if (!reread_) log_info("SIGHUP: nothing to reload (no --tls-cert or --config)");
    return;
  }
  auto fresh = tls_context::for_server(cfg_.tls_cert_file, cfg_.tls_key_file);
  if (!fresh) {
    log_warn("SIGHUP: keeping the current certificate: {}", fresh.error);
    return;
  }
  {
    std::lock_guard lock(tls_mutex_);
    credentials_.tls = std::make_shared<const tls_context>(std::move(*fresh.value));
  }
  log_info("SIGHUP: certificate reloaded from {}", cfg_.tls_cert_file);
}

}  // namespace ringcast
