// redis://[[user]:password@]host[:port][/db]
// sentinel://[[user]:password@]host[:port][,host[:port]...]/master-name[/db]   (docs/scaling.md)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/parsed.hpp"

namespace ringcast {

struct redis_endpoint {
  std::string host;
  std::uint16_t port = 0;
  bool operator==(const redis_endpoint&) const = default;
};

struct redis_url {
  std::string host = "127.0.0.1";
  std::uint16_t port = 6379;
  std::string user;      // Redis 6 ACL user; empty means the default user
  std::string password;  // empty: no AUTH
  unsigned db = 0;

  // sentinel://: the master is whatever these Sentinels (default port 26379) say `master_name`
  // is; host and port above are then filled in at each connect. The user and password are the
  // master's; the Sentinels are asked without.
  std::vector<redis_endpoint> sentinels;
  std::string master_name;
  // This address is a Sentinel (PING instead of AUTH and SELECT on connect).
  bool is_sentinel = false;
};

parsed<redis_url> parse_redis_url(std::string_view text);

}  // namespace ringcast
