// The Origin policy and the Host check (server/protocol/origin_policy, host_policy): what a
// browser sends, what the flags accept, and where each draws the line.
#include "protocol/origin_policy.hpp"

#include <gtest/gtest.h>

#include "protocol/host_policy.hpp"

namespace ringcast {
namespace {

origin_policy policy(std::string_view list) {
  auto p = parse_allowed_origins(list);
  EXPECT_TRUE(p) << list << ": " << p.error;
  return p ? *p.value : origin_policy{};
}

// Admitted by a server reached as `scheme`://`host` (its own origin).
bool admitted(const origin_policy& p, std::string_view origin, std::string_view host,
              std::string_view scheme = "https") {
  return judge_origin(p, origin, {scheme, host}) != origin_verdict::refused;
}

TEST(OriginPolicy, NoOriginIsNotABrowserAndIsAdmitted) {
  EXPECT_EQ(judge_origin(origin_policy{}, std::nullopt, {"http", "push.example"}),
            origin_verdict::no_origin);
  EXPECT_EQ(judge_origin(origin_policy{}, std::nullopt, {"http", ""}), origin_verdict::no_origin);
}

TEST(OriginPolicy, TheServersOwnOriginIsAdmittedWithoutAnyFlag) {
  const origin_policy none;
  EXPECT_TRUE(admitted(none, "http://127.0.0.1:8080", "127.0.0.1:8080", "http"));
  EXPECT_TRUE(admitted(none, "https://Push.Example", "push.example"));
  EXPECT_TRUE(admitted(none, "https://push.example", "push.example:443"));  // default port
  EXPECT_TRUE(admitted(none, "https://push.example:443", "push.example"));
  EXPECT_TRUE(admitted(none, "http://push.example:80", "push.example", "http"));
  EXPECT_TRUE(admitted(none, "http://[::1]:8080", "[::1]:8080", "http"));
  EXPECT_EQ(judge_origin(none, "https://push.example", {"https", "push.example"}),
            origin_verdict::same_origin);
  // Another port, another host, or the host inside a longer name: another origin.
  EXPECT_FALSE(admitted(none, "http://127.0.0.1:8081", "127.0.0.1:8080", "http"));
  EXPECT_FALSE(admitted(none, "https://push.example", "push.example:8443"));
  EXPECT_FALSE(admitted(none, "https://evil.example", "push.example"));
  EXPECT_FALSE(admitted(none, "https://push.example.evil.example", "push.example"));
  EXPECT_FALSE(admitted(none, "http://push.example:443", "push.example", "http"));
  // No Host, or one that names no place: nothing is the server's own.
  EXPECT_FALSE(admitted(none, "https://push.example", ""));
  EXPECT_FALSE(admitted(none, "https://push.example", "push.example:"));
}

TEST(OriginPolicy, TheOwnOriginComparesTheScheme) {
  const origin_policy none;
  // A page over http is not the https server's own, nor the other way round (issue 35, point 8).
  EXPECT_FALSE(admitted(none, "http://push.example", "push.example", "https"));
  EXPECT_FALSE(admitted(none, "https://push.example", "push.example", "http"));
  EXPECT_FALSE(admitted(none, "https://127.0.0.1:8080", "127.0.0.1:8080", "http"));
  // A Host without a port is the server's scheme's default port, not the page's.
  EXPECT_FALSE(admitted(none, "http://push.example:443", "push.example", "https"));
  EXPECT_FALSE(admitted(none, "https://push.example:80", "push.example", "http"));
  EXPECT_TRUE(admitted(none, "https://push.example:8443", "push.example:8443", "https"));
}

TEST(OriginPolicy, TheSchemeIsTheConnectionsOrATrustedProxysForwardedProto) {
  EXPECT_EQ(own_scheme(false, false, std::nullopt), "http");
  EXPECT_EQ(own_scheme(true, false, std::nullopt), "https");
  // From a peer that is not a --trusted-proxy the header is anybody's: ignored.
  EXPECT_EQ(own_scheme(false, false, "https"), "http");
  EXPECT_EQ(own_scheme(true, false, "http"), "https");
  EXPECT_EQ(own_scheme(false, true, "https"), "https");
  EXPECT_EQ(own_scheme(false, true, "HTTPS"), "https");
  EXPECT_EQ(own_scheme(true, true, "http"), "http");
  EXPECT_EQ(own_scheme(false, true, " https, http"), "https");  // the first value is the client's
  EXPECT_EQ(own_scheme(false, true, "wss"), "http");
  EXPECT_EQ(own_scheme(false, true, ""), "http");
  // A TLS proxy's page, same origin end to end.
  const auto scheme = own_scheme(false, true, "https");
  EXPECT_TRUE(admitted(origin_policy{}, "https://push.example", "push.example", scheme));
}

TEST(OriginPolicy, TheVerdictSaysHowAPageIsAdmitted) {
  const origin_policy listed_and_any = policy("https://shop.example,*");
  EXPECT_EQ(judge_origin(listed_and_any, "https://shop.example", {"https", "push.example"}),
            origin_verdict::listed);
  EXPECT_EQ(judge_origin(listed_and_any, "https://evil.example", {"https", "push.example"}),
            origin_verdict::any);
  EXPECT_EQ(judge_origin(listed_and_any, "null", {"https", "push.example"}), origin_verdict::any);
  EXPECT_EQ(judge_origin(policy("https://shop.example"), "https://evil.example",
                         {"https", "push.example"}),
            origin_verdict::refused);
}

TEST(OriginPolicy, NullAndMalformedOriginsAreForeign) {
  const origin_policy any_name = policy("https://*.example");
  for (std::string_view bad : {"null", "", "push.example", "file://", "https://",
                               "https://a.example/", "https://a.example:", "https://a.example:0443",
                               "https://a.example:123456", "ftp://a.example", "https://a b.example",
                               "https://[::1", "https://[::1]:", "https://a.example@b.example"}) {
    EXPECT_FALSE(admitted(any_name, bad, "a.example")) << bad;
  }
  // "*" admits even those: the operator said any page may connect.
  EXPECT_TRUE(admitted(policy("*"), "null", "push.example"));
}

TEST(OriginPolicy, ListedOriginsMatchSchemeHostAndPortExactly) {
  const origin_policy p = policy("https://shop.example, http://localhost:3000");
  EXPECT_TRUE(admitted(p, "https://shop.example", "push.example"));
  EXPECT_TRUE(admitted(p, "https://SHOP.EXAMPLE:443", "push.example"));
  EXPECT_TRUE(admitted(p, "http://localhost:3000", "push.example"));
  EXPECT_FALSE(admitted(p, "http://shop.example", "push.example"));
  EXPECT_FALSE(admitted(p, "https://shop.example:8443", "push.example"));
  EXPECT_FALSE(admitted(p, "https://www.shop.example", "push.example"));
  EXPECT_FALSE(admitted(p, "http://localhost:3001", "push.example"));
}

TEST(OriginPolicy, AWildcardAdmitsSubdomainsOnly) {
  const origin_policy p = policy("https://*.shop.example");
  EXPECT_TRUE(admitted(p, "https://eu.shop.example", "push.example"));
  EXPECT_TRUE(admitted(p, "https://a.b.shop.example", "push.example"));
  EXPECT_FALSE(admitted(p, "https://shop.example", "push.example"));
  EXPECT_FALSE(admitted(p, "https://evilshop.example", "push.example"));
  EXPECT_FALSE(admitted(p, "http://eu.shop.example", "push.example"));
  EXPECT_FALSE(admitted(p, "https://eu.shop.example.evil", "push.example"));
}

TEST(OriginPolicy, TheFlagRefusesWhatIsNotAnOrigin) {
  for (std::string_view bad :
       {"shop.example", "https://shop.example/", "https://shop.example/path", "ftp://shop.example",
        "https://*", "https://*.", "https://a.*.example", "null", "https://shop.example:http"}) {
    EXPECT_FALSE(parse_allowed_origins(bad)) << bad;
  }
  EXPECT_TRUE(parse_allowed_origins(""));
  EXPECT_TRUE(parse_allowed_origins("*"));
  EXPECT_TRUE(parse_allowed_origins("https://[::1]:8443,http://127.0.0.1:3000"));
  const auto error = parse_allowed_origins("https://ok.example,shop.example").error;
  EXPECT_NE(error.find("'shop.example'"), std::string::npos) << error;
}

TEST(HostPolicy, MoreThanOneHostFieldIsRefused) {
  boost::beast::http::fields one, two, none;
  one.insert(boost::beast::http::field::host, "push.example");
  two.insert(boost::beast::http::field::host, "push.example");
  two.insert(boost::beast::http::field::host, "evil.example");
  EXPECT_FALSE(host_field_error(one));
  EXPECT_FALSE(host_field_error(none));
  ASSERT_TRUE(host_field_error(two));
  EXPECT_EQ(*host_field_error(two), "more than one Host header");
}

TEST(HostPolicy, AnyHostWithoutTheFlag) {
  EXPECT_TRUE(host_allowed(host_policy{}, "evil.example"));
  EXPECT_TRUE(host_allowed(host_policy{}, ""));
}

TEST(HostPolicy, OnlyTheListedNamesThePortIgnored) {
  auto p = parse_allowed_hosts("push.example, localhost,127.0.0.1,[::1]:8080");
  ASSERT_TRUE(p) << p.error;
  EXPECT_TRUE(host_allowed(*p.value, "push.example"));
  EXPECT_TRUE(host_allowed(*p.value, "Push.Example:8443"));
  EXPECT_TRUE(host_allowed(*p.value, "localhost:8080"));
  EXPECT_TRUE(host_allowed(*p.value, "127.0.0.1:1"));
  EXPECT_TRUE(host_allowed(*p.value, "[::1]"));
  EXPECT_FALSE(host_allowed(*p.value, "evil.example"));
  EXPECT_FALSE(host_allowed(*p.value, "push.example.evil.example"));
  EXPECT_FALSE(host_allowed(*p.value, "127.0.0.2:8080"));
  EXPECT_FALSE(host_allowed(*p.value, ""));  // no Host at all names none of them
}

TEST(HostPolicy, TheFlagRefusesWhatIsNotAName) {
  for (std::string_view bad : {"https://push.example", "push example", "push.example/", "[::1"})
    EXPECT_FALSE(parse_allowed_hosts(bad)) << bad;
  EXPECT_EQ(host_name_of("Shop.Example:8080"), "shop.example");
  EXPECT_EQ(host_name_of("[::1]:8080"), "[::1]");
}

}  // namespace
}  // namespace ringcast
