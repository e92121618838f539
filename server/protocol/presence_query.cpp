#include "protocol/presence_query.hpp"

#include <charconv>

#include <boost/url/parse.hpp>

#include "protocol/client_params.hpp"

namespace ringcast {

parsed<presence_query> parse_presence_query(std::string_view target) {
  using result = parsed<presence_query>;
  const auto url = boost::urls::parse_origin_form(target);
  if (!url) return result::fail("malformed request target");
  presence_query q;
  int given = 0;
  for (const auto& param : url->params()) {
    const std::string_view value = param.value;
    if (param.key == "channel" || param.key == "user") {
      if (!valid_identifier(value))
        return result::fail(param.key + ": " + std::string(identifier_rule));
      q.what = param.key == "channel" ? presence_query::kind::channel : presence_query::kind::user;
      q.name = value;
    } else if (param.key == "top") {
      std::size_t n = 0;
      const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
      if (ec != std::errc{} || end != value.data() + value.size() || n < 1 || n > 100)
        return result::fail("top: expected a whole number from 1 to 100");
      q.what = presence_query::kind::top;
      q.top = n;
    } else {
      return result::fail("unknown parameter '" + param.key + "'; expected channel, user or top");
    }
    ++given;
  }
  if (given != 1) return result::fail("expected exactly one of channel, user or top");
  return result::ok(std::move(q));
}

}  // namespace ringcast
