// parse_kick_request on any admin body: a success names a valid user, the body's own "user".
#include <cstddef>
#include <cstdint>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "fuzz_check.hpp"
#include "protocol/admin_request.hpp"
#include "protocol/client_params.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view body(reinterpret_cast<const char*>(data), size);
  const auto parsed = ringcast::parse_kick_request(body);
  if (!parsed) {
    FUZZ_CHECK(!parsed.error.empty());
    return 0;
  }
  FUZZ_CHECK(ringcast::valid_identifier(parsed.value->user));
  boost::system::error_code ec;
  const auto json = boost::json::parse(body, ec);
  FUZZ_CHECK(!ec && json.is_object());
  FUZZ_CHECK(json.as_object().at("user").as_string() == parsed.value->user);
  return 0;
}
