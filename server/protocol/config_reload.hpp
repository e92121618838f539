// SIGHUP with --config: the command line and the file are read again and compared with the running
// settings. The live ones (log level, limits, the connection timeouts, the admin token) are
// applied; the TLS certificate and key are re-read by the server itself from the same paths;
// every other change is reported as needing a restart. docs/operations.md#config-file.
#pragma once

#include <array>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config.hpp"

namespace ringcast {

// The names (as flags, without dashes) of the settings that differ between two configs. A
// generated admin token counts as unchanged when both were generated.
std::vector<std::string> settings_changed(const config& running, const config& fresh);

// The settings a running server takes on SIGHUP, by flag name.
inline constexpr std::array<std::string_view, 13> live_settings{
    "log-level", "max-connections", "max-body", "max-queue", "handshake-timeout",
    "keepalive-timeout", "write-timeout", "admin-token",
    // Per-address and per-client limits: for connects and frames from then on.
    "max-connections-per-ip", "connect-rate-per-ip", "trusted-proxy", "client-message-rate",
    // Read when SIGUSR2 comes.
    "upgrade-binary"};

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
