// GET /admin/messages?limit=N: the most recent messages in history with their reach
// (docs/protocol.md, "Promotions").
#pragma once

#include <cstddef>
#include <string_view>

#include "protocol/parsed.hpp"

namespace ringcast {

constexpr std::size_t default_recent_messages = 10;
constexpr std::size_t max_recent_messages = 100;

// `target`: the request target (path and query). `limit` is optional, from 1 to
// max_recent_messages (default_recent_messages when absent).
parsed<std::size_t> parse_messages_query(std::string_view target);

}  // namespace ringcast
