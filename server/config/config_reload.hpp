// SIGHUP with --config: the command line and the file are read again and compared with the running
// settings, flag by flag of the flag table (flag_table.hpp). The live ones (log level, limits, the
// connection timeouts, the admin token: those with `apply_live`) are applied; the TLS certificate
// and key are re-read by the server itself from the same paths; every other change is reported as
// needing a restart. docs/operations.md#config-file.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"

namespace ringcast {

// The names (as flags, without dashes) of the settings that differ between two configs, in the
// table's order. A generated admin token counts as unchanged when both were generated.
std::vector<std::string> settings_changed(const config& running, const config& fresh);

// The settings a running server takes on SIGHUP, by flag name, in the table's order.
std::vector<std::string_view> live_settings();

// `running` with the live settings of `fresh` (a generated admin token is not replaced).
config with_live_settings(const config& running, const config& fresh);

struct reload_report {
  bool ok = false;                 // the settings parsed; false: `lines` holds the error
  std::vector<std::string> lines;  // what to log, one line each
  // When a live setting changed: the settings to run with from now on (with_live_settings).
  std::optional<config> apply;
};

// Parses `argv` again (as parse_config does) and says what changed against `running`.
reload_report check_reload(const config& running, int argc, const char* const* argv,
                           const std::function<const char*(const char*)>& getenv);

}  // namespace ringcast
