// CORS for /sse and /poll (server/protocol/cross_origin): which grant each Origin verdict gets,
// the headers a reply carries, and the answer to a preflight.
#include "protocol/cross_origin.hpp"

#include <boost/beast/http/field.hpp>

#include <gtest/gtest.h>

namespace ringcast {
namespace {

namespace http = boost::beast::http;

http_request request(http::verb method) {
  http_request req{method, "/poll?user=u", 11};
  req.set(http::field::host, "push.example");
  req.set(http::field::origin, "https://www.shop.example");
  return req;
}

TEST(CrossOrigin, AListedPageIsGrantedItsOriginWithCredentialsAnyPageOnlyTheStar) {
  const std::string_view page = "https://www.shop.example";
  const auto listed = grant_for(origin_verdict::listed, page);
  EXPECT_EQ(listed.allow_origin, page);
  EXPECT_TRUE(listed.credentials);
  // "*" without credentials: a browser sends no cookies to a page only "*" admits.
  const auto any = grant_for(origin_verdict::any, page);
  EXPECT_EQ(any.allow_origin, "*");
  EXPECT_FALSE(any.credentials);
  // Same origin and no Origin need nothing.
  EXPECT_TRUE(grant_for(origin_verdict::same_origin, page).allow_origin.empty());
  EXPECT_TRUE(grant_for(origin_verdict::no_origin, std::nullopt).allow_origin.empty());
  // A refused page may read its 403 (and so learn why), nothing else ever reaches it.
  EXPECT_EQ(grant_for(origin_verdict::refused, "https://evil.example").allow_origin,
            "https://evil.example");
}

TEST(CrossOrigin, EveryReplyVariesByOrigin) {
  http_response res;
  add_cors_headers(res, {});
  EXPECT_EQ(res[http::field::vary], "Origin");
  EXPECT_EQ(res.count(http::field::access_control_allow_origin), 0u);
  add_cors_headers(res, {"https://www.shop.example", true});
  EXPECT_EQ(res[http::field::access_control_allow_origin], "https://www.shop.example");
  EXPECT_EQ(res[http::field::access_control_allow_credentials], "true");
  EXPECT_EQ(cors_header_lines({"*", false}), "Vary: Origin\r\nAccess-Control-Allow-Origin: *\r\n");
  EXPECT_EQ(cors_header_lines({}), "Vary: Origin\r\n");
}

TEST(CrossOrigin, APreflightIsAnOptionsThatNamesItsMethod) {
  auto req = request(http::verb::options);
  EXPECT_FALSE(is_preflight(req));  // OPTIONS alone is not a preflight: 405 as before
  req.set(http::field::access_control_request_method, "GET");
  EXPECT_TRUE(is_preflight(req));
  auto get = request(http::verb::get);
  get.set(http::field::access_control_request_method, "GET");
  EXPECT_FALSE(is_preflight(get));
}

TEST(CrossOrigin, ThePreflightAllowsGetWithAuthorizationAndLastEventId) {
  auto req = request(http::verb::options);
  req.set(http::field::access_control_request_method, "GET");
  req.set(http::field::access_control_request_headers, "last-event-id, authorization");
  const auto res = preflight_response(req, {"https://www.shop.example", true});
  EXPECT_EQ(res.result(), http::status::no_content);
  EXPECT_EQ(res[http::field::access_control_allow_origin], "https://www.shop.example");
  EXPECT_EQ(res[http::field::access_control_allow_credentials], "true");
  EXPECT_EQ(res[http::field::access_control_allow_methods], "GET");
  EXPECT_EQ(res[http::field::access_control_allow_headers], "Authorization, Last-Event-ID");
  EXPECT_EQ(res[http::field::access_control_max_age], "600");
  EXPECT_EQ(res[http::field::vary], "Origin");
  EXPECT_TRUE(res.body().empty());
  EXPECT_TRUE(res.keep_alive());
}

}  // namespace
}  // namespace ringcast
