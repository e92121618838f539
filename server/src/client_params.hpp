// The query parameters every client endpoint (/ws, /sse, /poll) takes; PROTOCOL.md sections 1-2.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsed.hpp"

namespace ringcast {

constexpr std::size_t max_identifier_length = 64;
constexpr std::size_t max_channels_per_client = 32;

// 1-64 characters of [A-Za-z0-9_.:@-]: user ids, session ids and channel names.
bool valid_identifier(std::string_view text);
// The rule above as error messages state it after the field's name: "user: 1-64 characters of ...".
constexpr std::string_view identifier_rule = "1-64 characters of [A-Za-z0-9_.:@-]";

// A message id: a decimal unsigned 64-bit integer without sign, spaces or leading '+'.
std::optional<std::uint64_t> parse_message_id(std::string_view text);

struct client_params {
  std::string user;
  std::string sid = "0";
  std::optional<std::uint64_t> since;  // resume point; none means "from now"
  std::vector<std::string> channels;   // de-duplicated, in the order given
};

// Parses the query of a request target such as "/ws?user=alice&sid=t1&since=41&channels=a,b".
// Percent-decoding applies (Boost.URL) to keys and values. Unknown parameters are ignored; one of
// user, sid, since, channels or token given twice is an error (`token` is reserved for client
// tokens and otherwise ignored for now); so are a missing/invalid user, an invalid sid, since or
// channel name, and more than 32 distinct channels. `channels=` (empty) means no channels;
// "a,,b" is an error. The error text is short and names the parameter: "since: ...".
parsed<client_params> parse_client_params(std::string_view target);

}  // namespace ringcast
