#include "protocol/flag_parser_error.hpp"

#include <string_view>

#include <fmt/format.h>

namespace ringcast {

std::string flag_parser_error(const boost::program_options::error& e, int argc,
                              const char* const* argv) {
  // Every name program_options 1.81 substitutes into its messages.
  constexpr std::string_view placeholders[] = {"%canonical_option%", "%option%", "%original_token%",
                                               "%prefix%", "%value%"};
  for (int i = 1; i < argc; ++i) {
    const std::string_view argument = argv[i];
    for (const std::string_view p : placeholders) {
      if (argument.find(p) != std::string_view::npos) {
        return fmt::format(
            "cannot parse the argument '{}' (and it holds '{}', which the flag "
            "parser cannot put in an error message)",
            argument, p);
      }
    }
  }
  return e.what();
}

}  // namespace ringcast
