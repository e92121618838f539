// The command line (and --config FILE) read into a `config`: every flag parsed and validated.
#pragma once

#include <functional>
#include <iosfwd>
#include <optional>

#include "config/config.hpp"

namespace ringcast {

// How parsing ended: either a config to run with, or an exit status (0 after --help, 2 on a bad
// flag, with the reason already written to `err` as one line: "ringcast: --flag: expected ...,
// got 'value'"). The admin token is resolved (flag, then $RINGCAST_ADMIN_TOKEN if non-empty, else
// 32 random hex characters with admin_token_generated set), `threads` is never 0, and a client
// public key file has been read (its contents are checked with the TLS files at start-up).
struct config_outcome {
  std::optional<config> cfg;
  int exit_status = 0;
};

// `getenv` is injectable so tests need not touch the process environment.
config_outcome parse_config(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
                            const std::function<const char*(const char*)>& getenv);

}  // namespace ringcast
