// How the config parser reports a bad flag; shared by the flag table's readers, parse_config.cpp
// and config_secrets.cpp.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include <fmt/format.h>
#include <boost/program_options/variables_map.hpp>

namespace ringcast {

namespace po = boost::program_options;

// A flag that parsed but whose value is unusable; what() is the line after "ringcast: ". `flag`
// and `why` are set when one flag is to blame, so that a setting from --config can be reported
// with its file and line instead.
struct flag_error : std::runtime_error {
  using std::runtime_error::runtime_error;
  flag_error(std::string_view flag_name, std::string_view reason)
      : std::runtime_error(fmt::format("--{}: {}", flag_name, reason)),
        flag(flag_name),
        why(reason) {}
  std::string flag, why;
};

[[noreturn]] inline void bad_flag(std::string_view flag, std::string_view why) {
  throw flag_error(flag, why);
}

// Every flag is read as text and converted here rather than by program_options, so each error
// names the flag, says what was expected and echoes what was given.
inline const std::string& text_of(const po::variables_map& vm, const char* flag) {
  return vm[flag].as<std::string>();
}

}  // namespace ringcast
