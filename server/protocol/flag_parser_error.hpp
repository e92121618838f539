// The text of a Boost.Program_options error, for any command line (ringcast's and
// ringcast-load's flags).
#pragma once

#include <string>

#include <boost/program_options/errors.hpp>

namespace ringcast {

// e.what(), unless an argument holds one of the "%name%" placeholders of Boost's message
// templates: Boost 1.81 fills a template by replacing "%name%" with its value until none is
// left, which never ends when the value (taken from the command line) holds "%name%" itself, so
// what() would hang. Then the message names that argument instead, and Boost's text is not
// asked for.
std::string flag_parser_error(const boost::program_options::error& e, int argc,
                              const char* const* argv);

}  // namespace ringcast
