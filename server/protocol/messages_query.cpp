#include "protocol/messages_query.hpp"

#include <charconv>
#include <string>

#include <fmt/format.h>
#include <boost/url/parse.hpp>

namespace ringcast {

parsed<std::size_t> parse_messages_query(std::string_view target) {
  using result = parsed<std::size_t>;
  const auto url = boost::urls::parse_origin_form(target);
  if (!url) return result::fail("malformed request target");
  std::size_t limit = default_recent_messages;
  for (const auto& param : url->params()) {
    if (param.key != "limit")
      return result::fail("unknown parameter '" + param.key + "'; expected limit");
    const std::string_view value = param.value;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), limit);
    if (ec != std::errc{} || end != value.data() + value.size() || limit < 1 ||
        limit > max_recent_messages)
      return result::fail(
          fmt::format("limit: expected a whole number from 1 to {}", max_recent_messages));
  }
  return result::ok(limit);
}

}  // namespace ringcast
