#include "protocol/client_message.hpp"

#include <algorithm>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "protocol/client_params.hpp"

namespace ringcast {
namespace {

using result = parsed<client_message>;

constexpr std::string_view bad_type =
    "type: expected \"ping\", \"ack\", \"subscribe\" or \"unsubscribe\"";

// JSON has one number type and some encoders write integers as 42.0 or 4.2e1: the same id.
// 2^64 is the first double past the range.
std::optional<std::uint64_t> unsigned_integer(const boost::json::value& v) {
  if (const auto* u = v.if_uint64()) return *u;
  if (const auto* i = v.if_int64()) {
    if (*i >= 0) return static_cast<std::uint64_t>(*i);
    return std::nullopt;
  }
  if (const auto* d = v.if_double()) {
    constexpr double two_to_64 = 18446744073709551616.0;
    if (*d >= 0 && *d < two_to_64 && *d == static_cast<double>(static_cast<std::uint64_t>(*d)))
      return static_cast<std::uint64_t>(*d);
  }
  return std::nullopt;
}

parsed<std::vector<std::string>> channel_list(const boost::json::object& message) {
  using list_result = parsed<std::vector<std::string>>;
  const std::string bad = "channels: an array of names, each " + std::string{identifier_rule};
  const auto* field = message.if_contains("channels");
  const auto* array = field ? field->if_array() : nullptr;
  if (!array) return list_result::fail(bad);

  std::vector<std::string> channels;
  for (const auto& item : *array) {
    const auto* name = item.if_string();
    if (!name || !valid_identifier(*name)) return list_result::fail(bad);
    if (std::find(channels.begin(), channels.end(), *name) != channels.end()) continue;
    if (channels.size() == max_channels_per_client)
      return list_result::fail("channels: at most 32");
    channels.emplace_back(*name);
  }
  return list_result::ok(std::move(channels));
}

template <class Message>
result with_channels(const boost::json::object& message) {
  auto channels = channel_list(message);
  if (!channels) return result::fail(std::move(channels.error));
  return result::ok(Message{std::move(*channels.value)});
}

}  // namespace

parsed<client_message> parse_client_message(std::string_view text) {
  boost::system::error_code ec;
  const boost::json::value json = boost::json::parse(text, ec);
  if (ec) return result::fail("invalid JSON");
  const auto* message = json.if_object();
  if (!message) return result::fail("expected a JSON object");

  const auto* type_field = message->if_contains("type");
  const auto* type = type_field ? type_field->if_string() : nullptr;
  if (!type) return result::fail(std::string{bad_type});

  if (*type == "ping") return result::ok(ping_message{});
  if (*type == "ack") {
    const auto* id_field = message->if_contains("id");
    const auto id = id_field ? unsigned_integer(*id_field) : std::nullopt;
    if (!id) return result::fail("id: expected an unsigned integer");
    return result::ok(ack_message{*id});
  }
  if (*type == "subscribe") return with_channels<subscribe_message>(*message);
  if (*type == "unsubscribe") return with_channels<unsubscribe_message>(*message);
  return result::fail(std::string{bad_type});
}

}  // namespace ringcast
