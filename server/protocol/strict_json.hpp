#pragma once
// JSON as a request body must mean one thing. Boost.JSON keeps the last of two members with the
// same key ({"ttl":"1h","ttl":"2h"} reads as "2h"), so a body that names a key twice would do what
// one of its writers did not mean: this parse refuses it, at any depth, in the same single pass
// that builds the value.

#include <string_view>

#include <boost/json/value.hpp>

#include "protocol/parsed.hpp"

namespace ringcast {

// The value of `json`; or "invalid JSON", or `the key "<k>" is given twice` for the first key an
// object holds twice.
parsed<boost::json::value> parse_strict_json(std::string_view json);

}  // namespace ringcast
