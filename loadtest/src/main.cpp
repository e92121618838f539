// ringcast-load: many WebSocket, SSE and long-poll clients against a ringcast server, with a
// report of latency, loss and the server's cost per connection. docs/loadtest.md has the flags.
#include <sys/resource.h>

#include <csignal>
#include <cstdlib>
#include <exception>
#include <iostream>

#include "flags.hpp"
#include "proc_sampler.hpp"
#include "runner.hpp"

namespace {

// Each client holds one socket; take every descriptor the hard limit allows.
rlim_t raise_nofile() {
  rlimit lim{};
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return 0;
  lim.rlim_cur = lim.rlim_max;
  setrlimit(RLIMIT_NOFILE, &lim);
  getrlimit(RLIMIT_NOFILE, &lim);
  return lim.rlim_cur;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ringcast::load;
  std::optional<options> opts;
  try {
    std::string help;
    opts = parse_flags(argc, argv, std::getenv("RINGCAST_ADMIN_TOKEN"), &help);
    if (!opts) {
      std::cout << help;
      return 0;
    }
  } catch (const flag_error& e) {
    std::cerr << "ringcast-load: " << e.what() << " (see --help)\n";
    return 2;
  }
  for (const int pid : opts->server_pids) {
    if (const auto problem = check_server_pid(pid)) {
      std::cerr << "ringcast-load: " << (problem->fatal ? "" : "warning: ") << problem->message
                << "\n";
      if (problem->fatal) return 2;
    }
  }
  if (opts->kind != server_kind::nchan && opts->publish_rate > 0 && opts->admin_token.empty()) {
    std::cerr << "ringcast-load: warning: no --admin-token and no RINGCAST_ADMIN_TOKEN: the server "
                 "will refuse every publish (401); give it the token the server was started with\n";
  }
  if (opts->tls && opts->tls_ca.empty()) {
    std::cerr << "ringcast-load: --tls without --tls-ca: the server certificate is not verified\n";
  }
  // A peer that closes first must give an error code, not kill the process.
  std::signal(SIGPIPE, SIG_IGN);
  const auto limit = raise_nofile();
  // A few descriptors per process go to the publisher, pipes and stdio.
  const auto per_proc = opts->clients / opts->procs + 1 + 16;
  if (limit != RLIM_INFINITY && per_proc > limit) {
    std::cerr << "ringcast-load: warning: " << per_proc << " descriptors needed per process but "
              << "RLIMIT_NOFILE is " << limit << "; use --procs or raise the hard limit\n";
  }
  try {
    return run(*opts, limit);
  } catch (const std::exception& e) {
    std::cerr << "ringcast-load: " << e.what() << "\n";
    return 1;
  }
}
