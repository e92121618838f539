// Values of HTTP header fields (RFC 9110 section 5.6): optional white space (OWS: spaces and
// tabs) around a value, and lists of items separated by ',' (or parameters by ';').
#pragma once

#include <string_view>
#include <vector>

namespace ringcast {

inline std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// `s` cut at every `sep`, each part trimmed of OWS; empty parts are kept (a caller that refuses a
// malformed list sees them). An empty `s` is one empty part.
inline std::vector<std::string_view> split_trimmed(std::string_view s, char sep) {
  std::vector<std::string_view> parts;
  while (true) {
    const auto at = s.find(sep);
    parts.push_back(trim_ows(s.substr(0, at)));
    if (at == std::string_view::npos) return parts;
    s.remove_prefix(at + 1);
  }
}

}  // namespace ringcast
