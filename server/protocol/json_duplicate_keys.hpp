#pragma once
// Boost.JSON keeps the last of two members with the same key ({"ttl":"1h","ttl":"2h"} reads as
// "2h"), so a body that names a key twice would do what one of its writers did not mean. This finds
// such a key, at any depth, before the body is read.

#include <optional>
#include <string>
#include <string_view>

namespace ringcast {

// The first key that an object of `json` holds twice, or nullopt (also for text that is not JSON:
// the parse that follows says why).
std::optional<std::string> duplicate_json_key(std::string_view json);

}  // namespace ringcast
