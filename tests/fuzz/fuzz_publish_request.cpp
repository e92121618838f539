// parse_publish_request on any admin body. A success has at most one valid audience and
// data that clients can take: the data JSON holds no CR or LF (it goes on one SSE `data:` line),
// and it and the message envelope built around it are valid JSON (so valid UTF-8 for a WebSocket
// text frame) carrying the body's own data value.
//
// "The same value" allows doubles to differ by a few ulps: Boost.JSON 1.81 does not round every
// decimal to the nearest double (1.8446744071844037E27 reads one ulp low), so reading the body
// and reading the compact text written from it can disagree in the last bit.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "core/envelope.hpp"
#include "core/message.hpp"
#include "fuzz_check.hpp"
#include "protocol/admin_request.hpp"
#include "protocol/client_params.hpp"

namespace {

namespace json = boost::json;

json::value parse_or_abort(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  FUZZ_CHECK(!ec);
  return v;
}

bool same_value(const json::value& a, const json::value& b) {
  if (a.is_double() && b.is_double()) {
    const double x = a.get_double(), y = b.get_double();
    return std::abs(x - y) <= 4 * std::numeric_limits<double>::epsilon() * std::abs(x);
  }
  if (a.is_array() && b.is_array()) {
    const auto &x = a.get_array(), &y = b.get_array();
    return x.size() == y.size() && std::equal(x.begin(), x.end(), y.begin(), same_value);
  }
  if (a.is_object() && b.is_object()) {
    const auto &x = a.get_object(), &y = b.get_object();
    return x.size() == y.size() && std::all_of(x.begin(), x.end(), [&](const auto& member) {
             const auto* other = y.if_contains(member.key());
             return other && same_value(member.value(), *other);
           });
  }
  return a == b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const auto parsed = ringcast::parse_publish_request(body);
  if (!parsed) {
    FUZZ_CHECK(!parsed.error.empty());
    return 0;
  }
  const ringcast::publish_request& r = *parsed.value;
  FUZZ_CHECK(int{r.channel.has_value()} + int{r.user.has_value()} + int{r.users.has_value()} <= 1);
  if (r.users) {
    FUZZ_CHECK(!r.users->empty() && r.users->size() <= ringcast::max_users_per_publish);
    for (const auto& u : *r.users)
      FUZZ_CHECK(ringcast::valid_identifier(u));
  }
  FUZZ_CHECK(!(r.at_ms && r.delay));
  FUZZ_CHECK(r.spread.count() >= 0 && r.spread <= ringcast::default_max_spread);
  if (r.channel) FUZZ_CHECK(ringcast::valid_identifier(*r.channel));
  if (r.user) FUZZ_CHECK(ringcast::valid_identifier(*r.user));
  FUZZ_CHECK(r.data_json.find_first_of("\r\n") == std::string::npos);

  const json::value data_value = parse_or_abort(r.data_json);
  FUZZ_CHECK(same_value(data_value, parse_or_abort(body).as_object().at("data")));

  const auto message = ringcast::make_message(18446744073709551615ull, 1'700'000'000'000,
                                              ringcast::addressee_of(r), r.data_json, 0, r.spread);
  FUZZ_CHECK(message->json.find_first_of("\r\n") == std::string::npos);
  const json::value envelope = parse_or_abort(message->json);
  FUZZ_CHECK(envelope.as_object().at("data") == data_value);
  const json::value poll_reply = parse_or_abort(ringcast::messages_json({message}, 1, false));
  FUZZ_CHECK(poll_reply.as_object().at("messages").as_array().at(0) == envelope);
  FUZZ_CHECK(parse_or_abort(message->poll_body) ==
             parse_or_abort(ringcast::messages_json({message}, message->id, false)));
  return 0;
}
