// A comma-separated flag value ("a, b,c"): its items, the spaces around each trimmed, empty ones
// skipped (--allowed-origins, --allowed-hosts).
#pragma once

#include <string_view>
#include <vector>

namespace ringcast {

inline std::vector<std::string_view> comma_list(std::string_view list) {
  std::vector<std::string_view> items;
  while (!list.empty()) {
    const auto comma = list.find(',');
    std::string_view item = list.substr(0, comma);
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
    while (!item.empty() && item.front() == ' ')
      item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ')
      item.remove_suffix(1);
    if (!item.empty()) items.push_back(item);
  }
  return items;
}

}  // namespace ringcast
