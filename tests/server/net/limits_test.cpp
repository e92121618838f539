// The per-address and per-client limits on a simulated clock (issue 25): the token bucket, the
// table of client addresses, X-Forwarded-For behind --trusted-proxy, the repeated-warning
// throttle, and the strict framing checks of HTTP requests.
#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <boost/beast/http/message.hpp>

#include "core/repeated_warning.hpp"
#include "core/token_bucket.hpp"
#include "net/address_limits.hpp"
#include "protocol/client_address.hpp"
#include "protocol/http_framing.hpp"

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using clock = std::chrono::steady_clock;
namespace ip = boost::asio::ip;

const clock::time_point t0 = clock::time_point{} + 1h;

TEST(TokenBucket, StartsFullThenGivesTheRateAndNeverMoreThanTheBurst) {
  const token_bucket::shape s{10, 20};  // 10 a second, bursts of 20
  token_bucket b;
  for (int i = 0; i < 20; ++i)
    ASSERT_TRUE(b.take(t0, s)) << i;
  EXPECT_FALSE(b.take(t0, s));
  EXPECT_EQ(b.wait(t0, s), 100ms);
  EXPECT_FALSE(b.take(t0 + 99ms, s));
  EXPECT_TRUE(b.take(t0 + 100ms, s));
  EXPECT_FALSE(b.take(t0 + 100ms, s));
  // A long pause refills to the burst, not beyond.
  const auto later = t0 + 1h;
  EXPECT_TRUE(b.full(later, s));
  int taken = 0;
  while (b.take(later, s))
    ++taken;
  EXPECT_EQ(taken, 20);
}

TEST(TokenBucket, OverOneSecondASteadySenderGetsTheRatePlusTheBurst) {
  const token_bucket::shape s{50, 100};
  token_bucket b;
  int taken = 0;
  for (auto t = t0; t < t0 + 1s; t += 1ms)
    taken += b.take(t, s) ? 1 : 0;
  EXPECT_GE(taken, 100 + 49);
  EXPECT_LE(taken, 100 + 50);
}

const ip::address a1 = ip::make_address("192.0.2.1");
const ip::address a2 = ip::make_address("192.0.2.2");

TEST(AddressLimits, OffHoldsNothing) {
  address_limits limits({.max_connections = 0, .connect_rate = 0});
  std::vector<address_limits::slot> held;
  for (int i = 0; i < 1000; ++i) {
    auto o = limits.open_connection(a1, t0);
    EXPECT_EQ(o.refused, address_limits::refusal::none);
    held.push_back(std::move(o.held));
    EXPECT_EQ(limits.connect(a1, t0).refused, address_limits::refusal::none);
  }
  EXPECT_EQ(limits.snapshot().addresses, 0u);
}

TEST(AddressLimits, ConnectionsPerAddressAreCountedUntilTheirSlotsEnd) {
  address_limits limits({.max_connections = 3, .connect_rate = 0});
  std::vector<address_limits::slot> held;
  for (int i = 0; i < 3; ++i) {
    auto o = limits.open_connection(a1, t0);
    ASSERT_EQ(o.refused, address_limits::refusal::none);
    held.push_back(std::move(o.held));
  }
  EXPECT_EQ(limits.open_connection(a1, t0).refused, address_limits::refusal::too_many_connections);
  EXPECT_EQ(limits.open_connection(a2, t0).refused, address_limits::refusal::none)
      << "others unaffected";
  held.pop_back();
  auto again = limits.open_connection(a1, t0);
  EXPECT_EQ(again.refused, address_limits::refusal::none);
  EXPECT_EQ(limits.snapshot().refused_connections, 1u);
  // A connection handed over by an upgrade is counted even over the limit.
  held.push_back(limits.adopt_connection(a1, t0));
  held.push_back(std::move(again.held));
  held.pop_back();
  EXPECT_EQ(limits.open_connection(a1, t0).refused, address_limits::refusal::too_many_connections);
  held.clear();
  EXPECT_EQ(limits.snapshot().addresses, 0u) << "an address without connections is freed";
}

TEST(AddressLimits, ConnectRateIsABucketPerAddressWithRetryAfter) {
  address_limits limits({.max_connections = 0, .connect_rate = 5});
  for (int i = 0; i < 5; ++i)
    ASSERT_EQ(limits.connect(a1, t0).refused, address_limits::refusal::none) << i;
  const auto refused = limits.connect(a1, t0);
  EXPECT_EQ(refused.refused, address_limits::refusal::too_fast);
  EXPECT_EQ(refused.retry_after, 1s);
  EXPECT_EQ(limits.connect(a2, t0).refused, address_limits::refusal::none);
  EXPECT_EQ(limits.connect(a1, t0 + 200ms).refused, address_limits::refusal::none);
  EXPECT_EQ(limits.connect(a1, t0 + 200ms).refused, address_limits::refusal::too_fast);
  EXPECT_EQ(limits.snapshot().refused_rate, 2u);
}

TEST(AddressLimits, TheTableIsBoundedByConnectionsAndTheLastSecondsConnects) {
  address_limits limits({.max_connections = 10, .connect_rate = 10});
  // 10,000 addresses connect and leave at once (a spoofed flood behind a trusted proxy).
  for (unsigned i = 0; i < 10'000; ++i) {
    const auto a = ip::make_address_v4(0x0a000000u + i);
    auto o = limits.open_connection(a, t0);
    ASSERT_EQ(o.refused, address_limits::refusal::none);
    ASSERT_EQ(limits.connect(a, t0).refused, address_limits::refusal::none);
  }
  EXPECT_EQ(limits.snapshot().addresses, 10'000u) << "their buckets are not full yet";
  // One more connect a second later frees them all: their buckets have refilled.
  auto held = limits.open_connection(a1, t0 + 1s);
  limits.connect(a1, t0 + 1s);
  EXPECT_EQ(limits.snapshot().addresses, 1u);
  held = {};
  EXPECT_EQ(limits.snapshot().addresses, 1u) << "a1's bucket is one token short";
  limits.connect(a2, t0 + 2s + 1ms);
  EXPECT_EQ(limits.snapshot().addresses, 1u) << "a1 freed; a2's own bucket is one short";
}

TEST(AddressLimits, ASlotReleasedOnAnotherThreadCountsThere) {
  address_limits limits({.max_connections = 1, .connect_rate = 0});
  auto o = limits.open_connection(a1, t0);
  std::thread([s = std::move(o.held)]() mutable { s = {}; }).join();
  EXPECT_EQ(limits.open_connection(a1, t0).refused, address_limits::refusal::none);
}

// IPv6 (issue 35): one customer's /64 is one address for every limit, whatever the host bits;
// another /64 is another address. IPv4 addresses stay one by one, mapped or not.
TEST(AddressGroup, IPv6IsGroupedByPrefixIPv4ByAddress) {
  const auto group = [](std::string_view a, unsigned bits) {
    return address_group(ip::make_address(std::string(a)), bits).to_string();
  };
  EXPECT_EQ(group("2001:db8:1:2:aaaa:bbbb:cccc:dddd", 64), "2001:db8:1:2::");
  EXPECT_EQ(group("2001:db8:1:2::1", 64), group("2001:db8:1:2:ffff::9", 64));
  EXPECT_NE(group("2001:db8:1:2::1", 64), group("2001:db8:1:3::1", 64));
  EXPECT_EQ(group("2001:db8:1:2::1", 48), group("2001:db8:1:3::1", 48));
  EXPECT_EQ(group("2001:db8:1:2::1", 60), "2001:db8:1::");
  EXPECT_EQ(group("2001:db8:1:2::1", 128), "2001:db8:1:2::1");
  EXPECT_EQ(group("192.0.2.7", 64), "192.0.2.7");
  EXPECT_EQ(group("::ffff:192.0.2.7", 64), "192.0.2.7");
  EXPECT_NE(group("192.0.2.7", 1), group("192.0.2.8", 1));
}

TEST(AddressLimits, AnIPv6PrefixIsOneAddress) {
  address_limits limits({.max_connections = 2, .connect_rate = 1, .ipv6_prefix = 64});
  const auto host = [](unsigned n) {
    return ip::make_address("2001:db8:0:1::" + std::to_string(n));
  };
  auto first = limits.open_connection(host(1), t0);
  auto second = limits.open_connection(host(2), t0);
  EXPECT_EQ(limits.open_connection(host(3), t0).refused,
            address_limits::refusal::too_many_connections);
  EXPECT_EQ(limits.open_connection(ip::make_address("2001:db8:0:2::1"), t0).refused,
            address_limits::refusal::none);
  EXPECT_EQ(limits.connect(host(4), t0).refused, address_limits::refusal::none);
  EXPECT_EQ(limits.connect(host(5), t0).refused, address_limits::refusal::too_fast);
  // A prefix changed by SIGHUP meanwhile: the slots counted under the old grouping are released
  // from it, so that it is whole again once the prefix is changed back.
  limits.configure({.max_connections = 2, .connect_rate = 0, .ipv6_prefix = 128});
  first = {};
  second = {};
  limits.configure({.max_connections = 2, .connect_rate = 0, .ipv6_prefix = 64});
  auto again = limits.open_connection(host(6), t0);
  EXPECT_EQ(again.refused, address_limits::refusal::none);
  EXPECT_EQ(limits.open_connection(host(7), t0).refused, address_limits::refusal::none);
}

std::vector<address_range> ranges(std::string_view text) {
  auto r = parse_address_ranges(text);
  EXPECT_TRUE(r) << r.error;
  return r ? *r.value : std::vector<address_range>{};
}

TEST(ClientAddress, ParsesRangesAndRefusesNonsense) {
  const auto r = ranges("10.0.0.0/8, 127.0.0.1 ,fd00::/8");
  ASSERT_EQ(r.size(), 3u);
  EXPECT_TRUE(r[0].contains(ip::make_address("10.255.1.2")));
  EXPECT_FALSE(r[0].contains(ip::make_address("11.0.0.1")));
  EXPECT_TRUE(r[1].contains(ip::make_address("::ffff:127.0.0.1"))) << "v4-mapped is v4";
  EXPECT_FALSE(r[1].contains(ip::make_address("127.0.0.2")));
  EXPECT_TRUE(r[2].contains(ip::make_address("fd12::1")));
  EXPECT_FALSE(r[2].contains(ip::make_address("fe80::1")));
  EXPECT_TRUE(ranges("0.0.0.0/0")[0].contains(ip::make_address("8.8.8.8")));
  EXPECT_TRUE(ranges("192.168.1.0/23")[0].contains(ip::make_address("192.168.0.9")));
  EXPECT_FALSE(ranges("192.168.1.0/23")[0].contains(ip::make_address("192.168.2.9")));
  for (const char* bad : {"", "10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/8x", "host", "1.2.3"})
    EXPECT_FALSE(parse_address_ranges(bad)) << bad;
}

TEST(ClientAddress, FromATrustedProxyTheLastUntrustedHopOfXForwardedFor) {
  const auto trusted = ranges("10.0.0.0/8");
  const auto proxy = ip::make_address("10.0.0.5");
  auto from = [&](const ip::address& peer, std::vector<std::string_view> xff) {
    return client_address(peer, xff, trusted).to_string();
  };
  EXPECT_EQ(from(proxy, {"203.0.113.7"}), "203.0.113.7");
  // The client forged the left part; the proxies appended the right: the nearest untrusted hop.
  EXPECT_EQ(from(proxy, {"1.1.1.1, 203.0.113.7, 10.0.0.9"}), "203.0.113.7");
  EXPECT_EQ(from(proxy, {"1.1.1.1", "203.0.113.7,10.0.0.9"}), "203.0.113.7") << "two fields";
  EXPECT_EQ(from(proxy, {"garbage, 203.0.113.7"}), "203.0.113.7");
  EXPECT_EQ(from(proxy, {"[2001:db8::1]:443"}), "2001:db8::1");
  EXPECT_EQ(from(proxy, {"203.0.113.7:5555"}), "203.0.113.7");
  EXPECT_EQ(from(proxy, {"::ffff:203.0.113.7"}), "203.0.113.7");
  EXPECT_EQ(from(proxy, {"10.1.1.1, 10.2.2.2"}), "10.1.1.1") << "all trusted: the leftmost";
  EXPECT_EQ(from(proxy, {"203.0.113.7, garbage"}), "10.0.0.5") << "unusable: the peer";
  EXPECT_EQ(from(proxy, {}), "10.0.0.5");
  // From anyone else the header is ignored.
  EXPECT_EQ(from(ip::make_address("198.51.100.1"), {"203.0.113.7"}), "198.51.100.1");
  EXPECT_EQ(client_address(proxy, {"203.0.113.7"}, {}).to_string(), "10.0.0.5");
}

TEST(RepeatedWarning, TheFirstAtOnceThenAtMostOnceASecondWithTheCount) {
  repeated_warning w;
  EXPECT_EQ(w.count(t0), "");
  for (int i = 1; i < 1234; ++i)
    EXPECT_FALSE(w.count(t0 + std::chrono::microseconds(i * 800))) << i;
  EXPECT_EQ(w.count(t0 + 1s), " (1234 times in the last 1.0 s)");
  EXPECT_FALSE(w.count(t0 + 1500ms));
  EXPECT_EQ(w.count(t0 + 5s), " (2 times in the last 4.0 s)");
  EXPECT_EQ(w.count(t0 + 10s), "") << "a lone one after a quiet period has no count";
}

namespace http = boost::beast::http;

http::request_header<> header(std::vector<std::pair<std::string, std::string>> fields) {
  http::request_header<> h;
  for (auto& [k, v] : fields)
    h.insert(k, v);
  return h;
}

TEST(HttpFraming, OnlyExactlyChunkedAlone) {
  EXPECT_FALSE(framing_error(header({})));
  EXPECT_FALSE(framing_error(header({{"Transfer-Encoding", "chunked"}})));
  EXPECT_FALSE(framing_error(header({{"Transfer-Encoding", "Chunked"}})));
  EXPECT_FALSE(framing_error(header({{"Content-Length", "5"}})));
  EXPECT_TRUE(framing_error(header({{"Transfer-Encoding", "chunked, identity"}})));
  EXPECT_TRUE(framing_error(header({{"Transfer-Encoding", "gzip, chunked"}})));
  EXPECT_TRUE(framing_error(header({{"Transfer-Encoding", "identity"}})));
  EXPECT_TRUE(
      framing_error(header({{"Transfer-Encoding", "chunked"}, {"Transfer-Encoding", "chunked"}})));
  EXPECT_TRUE(framing_error(header({{"Transfer-Encoding", "chunked"}, {"Content-Length", "3"}})));
}

TEST(HttpFraming, HasBody) {
  EXPECT_FALSE(has_body(header({})));
  EXPECT_FALSE(has_body(header({{"Content-Length", "0"}})));
  EXPECT_FALSE(has_body(header({{"Content-Length", "000"}})));
  EXPECT_TRUE(has_body(header({{"Content-Length", "1"}})));
  EXPECT_TRUE(has_body(header({{"Transfer-Encoding", "chunked"}})));
}

TEST(HttpFraming, HeaderBlockEndAndObsFold) {
  const std::string req = "GET / HTTP/1.1\r\nHost: x\r\n\r\nNEXT";
  EXPECT_EQ(header_block_end(req), req.size() - 4);
  EXPECT_EQ(header_block_end("GET / HTTP/1.1\nHost: x\n\nrest"), 24u);
  EXPECT_FALSE(header_block_end("GET / HTTP/1.1\r\nHost: x\r\n"));
  // Fed a byte at a time, each look resuming where the last stopped, the end is found as soon as
  // its last byte is there.
  std::size_t n = 1;
  std::optional<std::size_t> end;
  for (; n <= req.size() && !end; ++n)
    end = header_block_end(std::string_view(req).substr(0, n), n - 1);
  EXPECT_EQ(end, req.size() - 4);
  EXPECT_EQ(n - 1, req.size() - 4);
  EXPECT_FALSE(has_obs_fold("GET / HTTP/1.1\r\nHost: x\r\nA: b c\r\n\r\n"));
  EXPECT_TRUE(has_obs_fold("GET / HTTP/1.1\r\nHost: x\r\nA: b\r\n c\r\n\r\n"));
  EXPECT_TRUE(has_obs_fold("GET / HTTP/1.1\r\nHost: x\r\nA:\r\n\tc\r\n\r\n"));
}

}  // namespace
}  // namespace ringcast
