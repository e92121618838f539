// The connect hook's 200 answer (docs/protocol.md, "Connect hook"): {"user"?: id, "channels"?:
// [name, …]}; what is left out stays as the client asked. Anything else is a bad answer: the
// client is then refused, never admitted on a guess.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/parsed.hpp"

namespace ringcast {

struct connect_answer {
  std::optional<std::string> user;
  std::optional<std::vector<std::string>> channels;
};

parsed<connect_answer> parse_connect_answer(std::string_view body);

}  // namespace ringcast
