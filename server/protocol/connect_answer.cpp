#include "protocol/connect_answer.hpp"

#include <algorithm>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "protocol/client_params.hpp"

namespace ringcast {

namespace json = boost::json;

parsed<connect_answer> parse_connect_answer(std::string_view body) {
  using result = parsed<connect_answer>;
  boost::system::error_code ec;
  const json::value v = json::parse(body, ec);
  if (ec) return result::fail("not JSON: " + ec.message());
  const json::object* o = v.if_object();
  if (!o) return result::fail("expected a JSON object");
  connect_answer a;
  if (const auto* user = o->if_contains("user")) {
    const json::string* s = user->if_string();
    if (!s || !valid_identifier(*s))
      return result::fail("user: expected a string of " + std::string(identifier_rule));
    a.user = std::string(*s);
  }
  if (const auto* channels = o->if_contains("channels")) {
    const json::array* list = channels->if_array();
    if (!list) return result::fail("channels: expected an array of names");
    a.channels.emplace();
    for (const auto& c : *list) {
      const json::string* s = c.if_string();
      if (!s || !valid_identifier(*s))
        return result::fail("channels: expected names of " + std::string(identifier_rule));
      if (std::find(a.channels->begin(), a.channels->end(), *s) == a.channels->end())
        a.channels->emplace_back(*s);
    }
    if (a.channels->size() > max_channels_per_client) return result::fail("channels: at most 32");
  }
  return result::ok(std::move(a));
}

}  // namespace ringcast
