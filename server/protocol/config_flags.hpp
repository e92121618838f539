// The server's flags as Boost.Program_options describes them: names, value names, defaults (from
// a default `config`) and the help text. config.cpp reads them; --config files use the same names.
#pragma once

#include <boost/program_options/options_description.hpp>

#include <string>
#include <vector>

namespace ringcast {

// Every flag, by topic (listening, timeouts, limits, auth and TLS, Redis, hooks, promotions,
// logging), in --help's order; a new flag goes into its topic's group.
struct flag_group {
  std::string topic;  // --help's heading
  boost::program_options::options_description flags;
};
std::vector<flag_group> describe_flag_groups();
// All of them in one description, for parsing.
boost::program_options::options_description describe_flags();
// --help's list: a heading per topic, each flag with its value name and default, the description
// wrapped to 80 columns at word boundaries.
std::string help_text();

}  // namespace ringcast
