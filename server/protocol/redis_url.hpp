// redis://[[user]:password@]host[:port][/db]
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "parsed.hpp"

namespace ringcast {

struct redis_url {
  std::string host = "127.0.0.1";
  std::uint16_t port = 6379;
  std::string user;      // Redis 6 ACL user; empty means the default user
  std::string password;  // empty: no AUTH
  unsigned db = 0;
};

parsed<redis_url> parse_redis_url(std::string_view text);

}  // namespace ringcast
