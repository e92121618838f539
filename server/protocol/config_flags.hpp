// The server's flags as Boost.Program_options describes them: names, value names, defaults (from
// a default `config`) and the help text. config.cpp reads them; --config files use the same names.
#pragma once

#include <boost/program_options/options_description.hpp>

#include <string>

namespace ringcast {

boost::program_options::options_description describe_flags();
// --help's list of flags, without the trailing spaces program_options leaves on wrapped lines.
std::string help_text(const boost::program_options::options_description& flags);

}  // namespace ringcast
