// parse_client_message on any WebSocket text. A success keeps the channel contract (at most 32
// distinct valid names) and its canonical JSON parses back to the same message; a failure says
// why.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <type_traits>
#include <variant>

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include "fuzz_check.hpp"
#include "protocol/client_message.hpp"
#include "protocol/client_params.hpp"

namespace {

namespace json = boost::json;
using ringcast::client_message;

void check_channels(const std::vector<std::string>& channels) {
  FUZZ_CHECK(channels.size() <= ringcast::max_channels_per_client);
  FUZZ_CHECK(std::set<std::string>(channels.begin(), channels.end()).size() == channels.size());
  for (const auto& channel : channels)
    FUZZ_CHECK(ringcast::valid_identifier(channel));
}

std::string canonical_json(const client_message& message) {
  json::object out;
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, ringcast::ping_message>) {
          out["type"] = "ping";
        } else if constexpr (std::is_same_v<T, ringcast::ack_message>) {
          out["type"] = "ack";
          out["id"] = m.id;
        } else {
          check_channels(m.channels);
          out["type"] =
              std::is_same_v<T, ringcast::subscribe_message> ? "subscribe" : "unsubscribe";
          out["channels"] = json::array(m.channels.begin(), m.channels.end());
        }
      },
      message);
  return json::serialize(out);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = ringcast::parse_client_message(text);
  if (!parsed) {
    FUZZ_CHECK(!parsed.error.empty());
    return 0;
  }
  const std::string canonical = canonical_json(*parsed.value);
  const auto again = ringcast::parse_client_message(canonical);
  FUZZ_CHECK(again);
  FUZZ_CHECK(canonical_json(*again.value) == canonical);
  return 0;
}
