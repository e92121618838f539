// A hash for maps keyed by std::string that looks keys up by std::string_view with no string made
// (transparent: with std::equal_to<>).
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace ringcast {

struct string_hash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

}  // namespace ringcast
