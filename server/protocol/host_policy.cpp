#include "protocol/host_policy.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "protocol/comma_list.hpp"

namespace ringcast {

std::string host_name_of(std::string_view authority) {
  std::string_view name = authority;
  if (name.starts_with('[')) {
    name = name.substr(0, name.find(']') + 1);  // npos + 1 = 0: "[" without "]" is no name
  } else if (const auto colon = name.find(':'); colon != std::string_view::npos) {
    name = name.substr(0, colon);
  }
  std::string out(name);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

parsed<host_policy> parse_allowed_hosts(std::string_view list) {
  host_policy policy;
  for (const std::string_view item : comma_list(list)) {
    std::string name = host_name_of(item);
    const std::string_view port = item.substr(std::min(name.size(), item.size()));
    const bool port_ok = port.empty() || (port.size() >= 2 && port.size() <= 6 && port[0] == ':' &&
                                          std::all_of(port.begin() + 1, port.end(),
                                                      [](char c) { return c >= '0' && c <= '9'; }));
    const bool valid =
        port_ok && !name.empty() &&
        (name.front() == '[' ? name.back() == ']'
                             : std::all_of(name.begin(), name.end(), [](char c) {
                                 return std::isalnum(static_cast<unsigned char>(c)) || c == '-' ||
                                        c == '.' || c == '_';
                               }));
    if (!valid)
      return parsed<host_policy>::fail(
          fmt::format("expected host names (a port is ignored), got '{}'", item));
    policy.names.push_back(std::move(name));
  }
  return parsed<host_policy>::ok(std::move(policy));
}

std::optional<std::string_view> host_field_error(const boost::beast::http::fields& header) {
  if (header.count(boost::beast::http::field::host) > 1) return "more than one Host header";
  return std::nullopt;
}

bool host_allowed(const host_policy& policy, std::string_view host_header) {
  if (policy.names.empty()) return true;
  const std::string name = host_name_of(host_header);
  return std::find(policy.names.begin(), policy.names.end(), name) != policy.names.end();
}

}  // namespace ringcast
