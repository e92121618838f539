// --config FILE: the server's settings in a file, one `name = value` a line, with the flags' names
// (the format Boost.Program_options reads for config files: `#` starts a comment, blank lines are
// skipped, spaces around the name and the value are trimmed). Switches (`demo`, `require-exp`)
// take true/false. docs/operations.md#config-file.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/parsed.hpp"

namespace ringcast {

struct config_file_entry {
  std::string name;
  std::string value;
  unsigned line = 0;
};

// What a setting of the file may be: a flag taking a value, a switch, or neither (unknown, or a
// flag that has no place in a file such as `help` and `config`).
enum class setting_kind { value, switch_, not_allowed, unknown };

// Reads `path` and checks every line. The error names the file and the line:
// "/etc/ringcast/ringcast.conf:12: unknown setting 'heartbeats'". A switch set to false is left
// out of the entries; one set to true has an empty value.
parsed<std::vector<config_file_entry>> read_config_file(
    const std::string& path, const std::function<setting_kind(std::string_view)>& kind_of);

// The same on text already read (`path` only names it in errors).
parsed<std::vector<config_file_entry>> parse_config_text(
    std::string_view text, const std::string& path,
    const std::function<setting_kind(std::string_view)>& kind_of);

// A secret read from a file (--admin-token-file, --client-secret-file): its content without the
// final line break. Empty or unreadable files are errors naming the file.
parsed<std::string> read_secret_file(const std::string& path);

}  // namespace ringcast
