// The flag table (flag_table.hpp) as Boost.Program_options describes it, for parsing the command
// line, and --help's text.
#pragma once

#include <boost/program_options/options_description.hpp>

#include <string>
#include <vector>

namespace ringcast {

// Every flag, by the table's topics, in --help's order: names, value names, defaults (from a
// default `config`) and the help text.
struct flag_group_description {
  std::string topic;  // --help's heading
  boost::program_options::options_description flags;
};
std::vector<flag_group_description> describe_flag_groups();
// All of them in one description, for parsing.
boost::program_options::options_description describe_flags();
// --help's list: a heading per topic, each flag with its value name and default, the description
// wrapped to 80 columns at word boundaries.
std::string help_text();

}  // namespace ringcast
