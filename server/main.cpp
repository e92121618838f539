// ringcast: a long-connection push server whose timeouts run on a hashed timing wheel.
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>

#include <unistd.h>

#include "config/config.hpp"
#include "config/config_reload.hpp"
#include "config/config_secrets.hpp"
#include "config/parse_config.hpp"
#include "core/log.hpp"
#include "net/node_credentials.hpp"
#include "net/server.hpp"
#include "net/upgrade_exec.hpp"
#include "protocol/client_auth.hpp"
#include "upgrade/process_handover.hpp"

int main(int argc, char** argv) {
  // Until the server listens for it, a SIGUSR2 (upgrade in place) is ignored, not fatal.
  std::signal(SIGUSR2, SIG_IGN);
  const auto getenv = [](const char* name) -> const char* { return std::getenv(name); };
  auto outcome = ringcast::parse_config(argc, argv, std::cout, std::cerr, getenv);
  if (!outcome.cfg) return outcome.exit_status;
  ringcast::config& cfg = *outcome.cfg;
  ringcast::set_log_level(cfg.log);
  auto credentials = ringcast::build_credentials(cfg);
  if (!credentials) {
    std::cerr << "ringcast: " << credentials.error << '\n';
    return 2;
  }
  if (cfg.check_config) {
    std::cout << "ringcast: the settings are fine\n";
    return 0;
  }
  if (cfg.print_routes) {
    // The table this server would answer with (built, never run).
    const ringcast::server srv(cfg, std::move(*credentials.value));
    std::cout << srv.routes().describe_json() << '\n';
    return 0;
  }
  // Exec'd by an upgrading ringcast: its state, read before anything is logged or served.
  std::optional<ringcast::process_handover> adopted;
  if (cfg.upgrade_state_fd >= 0) {
    std::string why;
    auto bytes = ringcast::read_state_fd(cfg.upgrade_state_fd, why);
    auto state = bytes ? ringcast::decode_handover(*bytes)
                       : ringcast::parsed<ringcast::process_handover>::fail(why);
    if (state) state.error = ringcast::check_handed_descriptors(*state.value);
    if (!state.error.empty()) {
      std::cerr << "ringcast: --upgrade-state-fd: " << state.error << '\n';
      return 2;
    }
    adopted = std::move(*state.value);
    if (cfg.admin_token_generated && !adopted->generated_admin_token.empty())
      cfg.admin_token = adopted->generated_admin_token;
  }
  if (cfg.admin_token_generated) {
    ringcast::log_info("admin token (generated; set --admin-token to choose one): {}",
                       cfg.admin_token);
  }
  if (const auto& tokens = credentials.value->client_tokens) {
    ringcast::log_info("client tokens required ({})", tokens->algorithm());
  } else {
    ringcast::log_info(
        "client endpoints are open: no --client-secret or --client-public-key, so any client "
        "may connect as any user");
  }
  if (credentials.value->tls) ringcast::log_info("serving HTTPS and WSS (--tls-cert)");
  for (const auto& warning : ringcast::secret_file_warnings(cfg, ::getegid()))
    ringcast::log_warn("{}", warning);
  // OpenSSL writes to sockets itself, and a write to a peer that has gone must not kill us.
  std::signal(SIGPIPE, SIG_IGN);
  ringcast::server srv(cfg, std::move(*credentials.value));
  srv.allow_upgrades(ringcast::own_binary_path(), ringcast::arguments_to_pass(argc, argv));
  if (adopted) srv.adopt(std::move(*adopted));

  // With --config, SIGHUP (systemctl reload) also reads the settings again (server_reload.cpp).
  if (!cfg.config_file.empty()) {
    srv.reread_settings_with([argc, argv, getenv](const ringcast::config& running) {
      return ringcast::check_reload(running, argc, argv, getenv);
    });
  }
  return srv.run();
}
