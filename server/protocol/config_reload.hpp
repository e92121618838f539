// SIGHUP with --config: the command line and the file are read again and compared with the running
// settings. This build applies none of them live except the TLS certificate and key (re-read by
// the server itself from the same paths); every other change is reported as needing a restart.
// docs/operations.md#config-file.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "config.hpp"

namespace ringcast {

// The names (as flags, without dashes) of the settings that differ between two configs. A
// generated admin token counts as unchanged when both were generated.
std::vector<std::string> settings_changed(const config& running, const config& fresh);

struct reload_report {
  bool ok = false;                 // the settings parsed; false: `lines` holds the error
  std::vector<std::string> lines;  // what to log, one line each
};

// Parses `argv` again (as parse_config does) and says what changed against `running`.
reload_report check_reload(const config& running, int argc, const char* const* argv,
                           const std::function<const char*(const char*)>& getenv);

}  // namespace ringcast
