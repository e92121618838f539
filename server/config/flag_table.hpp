// The one table of the server's flags: each entry says everything about one flag, and --help, the
// command line, --config FILE, the SIGHUP diff and its live settings all read it. Adding a flag is
// a field in `config` and an entry here (docs/architecture.md, "Flags").
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"

namespace ringcast {

struct flag {
  std::string_view name = {};  // without the dashes: --name on the command line, `name =` in a file
  // --help's name of the value (N, DURATION, FILE, URL...); empty: a switch, which takes none.
  std::string_view value_name = {};
  std::string_view help = {};
  // Reads the flag's text (empty for a switch) into where it lands in `config`; throws flag_error
  // (flag_error.hpp) naming the flag. Null for the flags read together after the table, in
  // parse_config.cpp: a secret with its file and the environment (config_secrets.hpp), the TLS
  // pair, --help, --version and --config.
  std::function<void(const std::string& text, config& cfg)> read = nullptr;
  // The setting as it runs, as text: --help's default (from a default `config`, when
  // `has_default`) and what SIGHUP compares. Null: not a setting of its own (--help, a secret's
  // file, whose change shows as the secret's).
  std::function<std::string(const config& cfg)> value = nullptr;
  // Checks the setting against the others once every flag is read (a timeout against --tick-ms);
  // throws flag_error. Null: nothing to check.
  std::function<void(const config& cfg)> check = nullptr;
  // The flag always has a value: without it, the default's text is read (and --help shows it).
  bool has_default = false;
  // Live on SIGHUP: copies the setting from the config just read into the running one. Null: a
  // change takes effect at the next restart.
  std::function<void(config& running, const config& fresh)> apply_live = nullptr;
  bool in_file = true;  // may be set in --config FILE (not --help, --version, --config itself)
  // The value is a secret: a --config file that sets it is checked at start-up like a secret
  // file (a password in a --redis URL too, see parse_config.cpp).
  bool secret = false;
  char short_name = 0;  // -h
};

// The flags by topic, in --help's order (a new flag goes into its topic's group).
struct flag_group {
  std::string_view topic;  // --help's heading
  std::vector<flag> flags;
};
const std::vector<flag_group>& flag_table();

// The entry named `name`, or null.
const flag* find_flag(std::string_view name);

}  // namespace ringcast
