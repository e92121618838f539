#include "protocol/redis_url.hpp"

#include <gtest/gtest.h>

namespace ringcast {
namespace {

TEST(RedisUrl, HostPortAndDatabase) {
  auto u = parse_redis_url("redis://10.0.0.7:6380/3");
  ASSERT_TRUE(u) << u.error;
  EXPECT_EQ(u.value->host, "10.0.0.7");
  EXPECT_EQ(u.value->port, 6380);
  EXPECT_EQ(u.value->db, 3u);
  EXPECT_TRUE(u.value->password.empty());
}

TEST(RedisUrl, DefaultsToPort6379AndDatabase0) {
  auto u = parse_redis_url("redis://127.0.0.1");
  ASSERT_TRUE(u) << u.error;
  EXPECT_EQ(u.value->port, 6379);
  EXPECT_EQ(u.value->db, 0u);
}

TEST(RedisUrl, PasswordWithAndWithoutUser) {
  auto only_password = parse_redis_url("redis://:s3cret@127.0.0.1:6379/0");
  ASSERT_TRUE(only_password) << only_password.error;
  EXPECT_EQ(only_password.value->user, "");
  EXPECT_EQ(only_password.value->password, "s3cret");
  auto acl = parse_redis_url("redis://ringcast:p%40ss@127.0.0.1/1");
  ASSERT_TRUE(acl) << acl.error;
  EXPECT_EQ(acl.value->user, "ringcast");
  EXPECT_EQ(acl.value->password, "p@ss");  // percent-decoded
}

TEST(RedisUrl, Ipv6HostLosesItsBrackets) {
  auto u = parse_redis_url("redis://[::1]:7000");
  ASSERT_TRUE(u) << u.error;
  EXPECT_EQ(u.value->host, "::1");
  EXPECT_EQ(u.value->port, 7000);
}

TEST(RedisUrl, RefusesWhatItCannotUse) {
  for (const char* bad : {"", "127.0.0.1:6379", "http://127.0.0.1", "redis://127.0.0.1:0",
                          "redis://127.0.0.1/16", "redis://127.0.0.1/x", "redis://127.0.0.1/1/2",
                          "redis://127.0.0.1?db=1", "redis://127.0.0.1:99999"}) {
    auto u = parse_redis_url(bad);
    EXPECT_FALSE(u) << bad;
    EXPECT_FALSE(u.error.empty()) << bad;
  }
}

TEST(SentinelUrl, SentinelsMasterAndDatabase) {
  auto u = parse_redis_url("sentinel://127.0.0.1:26379,127.0.0.2,[::1]:26380/mymaster/2");
  ASSERT_TRUE(u) << u.error;
  EXPECT_EQ(u.value->master_name, "mymaster");
  EXPECT_EQ(u.value->db, 2u);
  ASSERT_EQ(u.value->sentinels.size(), 3u);
  EXPECT_EQ(u.value->sentinels[0], (redis_endpoint{"127.0.0.1", 26379}));
  EXPECT_EQ(u.value->sentinels[1], (redis_endpoint{"127.0.0.2", 26379}));
  EXPECT_EQ(u.value->sentinels[2], (redis_endpoint{"::1", 26380}));
  EXPECT_TRUE(u.value->host.empty());  // asked of the Sentinels at each connect
  EXPECT_FALSE(u.value->is_sentinel);
}

TEST(SentinelUrl, PasswordIsTheMasters) {
  auto u = parse_redis_url("sentinel://ringcast:p%40ss@10.0.0.1:5000,10.0.0.2:5000/m");
  ASSERT_TRUE(u) << u.error;
  EXPECT_EQ(u.value->user, "ringcast");
  EXPECT_EQ(u.value->password, "p@ss");
  EXPECT_EQ(u.value->db, 0u);
  EXPECT_EQ(u.value->sentinels.size(), 2u);
}

TEST(SentinelUrl, RefusesWhatItCannotUse) {
  for (const char* bad :
       {"sentinel://", "sentinel://127.0.0.1:26379", "sentinel://127.0.0.1:26379/",
        "sentinel://127.0.0.1:26379,/m", "sentinel://,127.0.0.1/m", "sentinel://127.0.0.1:0/m",
        "sentinel://127.0.0.1:99999/m", "sentinel://127.0.0.1/m/16", "sentinel://127.0.0.1/m/x",
        "sentinel://127.0.0.1/m?x=1", "sentinel://host name/m"}) {
    auto u = parse_redis_url(bad);
    EXPECT_FALSE(u) << bad;
    EXPECT_FALSE(u.error.empty()) << bad;
  }
  EXPECT_EQ(parse_redis_url("sentinel://127.0.0.1:0/m").error,
            "sentinel '127.0.0.1:0': the port must be 1-65535");
}

}  // namespace
}  // namespace ringcast
