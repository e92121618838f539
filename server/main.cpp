// ringcast: a long-connection push server whose timeouts run on a hashed timing wheel.
#include <csignal>
#include <cstdlib>
#include <iostream>

#include "client_auth.hpp"
#include "config.hpp"
#include "log.hpp"
#include "node_resources.hpp"
#include "server.hpp"

int main(int argc, char** argv) {
  auto outcome = ringcast::parse_config(argc, argv, std::cout, std::cerr,
                                        [](const char* name) { return std::getenv(name); });
  if (!outcome.cfg) return outcome.exit_status;
  const ringcast::config& cfg = *outcome.cfg;
  auto resources = ringcast::build_resources(cfg);
  if (!resources) {
    std::cerr << "ringcast: " << resources.error << '\n';
    return 2;
  }
  if (cfg.admin_token_generated) {
    ringcast::log_info("admin token (generated; set --admin-token to choose one): {}",
                       cfg.admin_token);
  }
  if (const auto& tokens = resources.value->client_tokens) {
    ringcast::log_info("client tokens required ({})", tokens->algorithm());
  } else {
    ringcast::log_info(
        "client endpoints are open: no --client-secret or --client-public-key, so any client "
        "may connect as any user");
  }
  if (resources.value->tls) ringcast::log_info("serving HTTPS and WSS (--tls-cert)");
  // OpenSSL writes to sockets itself, and a write to a peer that has gone must not kill us.
  std::signal(SIGPIPE, SIG_IGN);
  ringcast::server srv(cfg, std::move(*resources.value));
  return srv.run();
}
