#pragma once
// What names a promotion where a person reads a list of them (the admin page's "Reach of recent
// promotions"): its data's "title" when that is a string, else the start of its data as JSON. An id
// of sixteen digits tells an operator nothing.

#include <cstddef>
#include <string>
#include <string_view>

namespace ringcast {

constexpr std::size_t message_label_chars = 80;  // at most, in characters (code points)

// From a message envelope ({"type":"message",...,"data":...}); "" if it has no data.
std::string message_label(std::string_view envelope_json);

}  // namespace ringcast
