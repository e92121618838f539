// GET /admin/presence?channel=C | ?user=U | ?top=N (docs/protocol.md, "Presence").
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "protocol/parsed.hpp"

namespace ringcast {

struct presence_query {
  enum class kind { channel, user, top };
  kind what = kind::channel;
  std::string name;      // the channel or the user
  std::size_t top = 10;  // kind::top: how many channels, 1-100
};

// `target`: the request target (path and query). Exactly one of the three parameters.
parsed<presence_query> parse_presence_query(std::string_view target);

}  // namespace ringcast
