// Messages a WebSocket client may send (docs/protocol.md, "WebSocket").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "protocol/parsed.hpp"

namespace ringcast {

struct ping_message {};
struct ack_message {
  std::uint64_t id;
};
struct subscribe_message {
  std::vector<std::string> channels;  // each a valid identifier, de-duplicated
};
struct unsubscribe_message {
  std::vector<std::string> channels;
};

using client_message =
    std::variant<ping_message, ack_message, subscribe_message, unsubscribe_message>;

// {"type":"ping"} | {"type":"ack","id":N} | {"type":"subscribe","channels":[...]} |
// {"type":"unsubscribe","channels":[...]}. Anything else (bad JSON, unknown type, wrong field
// types, invalid channel names, more than 32 channels) fails with a message for the client.
// Extra fields are ignored. An ack id is a non-negative integral JSON number below 2^64 (42.0
// counts). Repeated keys: the last one wins (Boost.JSON's rule).
parsed<client_message> parse_client_message(std::string_view text);

}  // namespace ringcast
