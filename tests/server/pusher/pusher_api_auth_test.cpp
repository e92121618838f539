// The HTTP API's request signatures (server/pusher/pusher_api_auth), against the worked example of
// Pusher's "HTTP API reference" (app 3, key 278d425bdf160c739803, secret 7ad3773142a6692b25b8,
// timestamp 1353088179), whose body_md5 and signature Python's hashlib and hmac give too.
// Requests signed by the `pusher` npm SDK itself are checked in pusher_sdk_check_test.
#include "pusher/pusher_api_auth.hpp"

#include <string>

#include <gtest/gtest.h>

#include "pusher/pusher_crypto.hpp"

namespace ringcast::pusher {
namespace {

const app docs_app{"3", "278d425bdf160c739803", "7ad3773142a6692b25b8", false};
constexpr std::int64_t docs_time = 1353088179;
constexpr const char* docs_body =
    R"({"name":"foo","channels":["project-3"],"data":"{\"some\":\"data\"}"})";
constexpr const char* docs_query =
    "auth_key=278d425bdf160c739803&auth_timestamp=1353088179&auth_version=1.0&"
    "body_md5=ec365a775a4cd0599faeb73354201b6f&"
    "auth_signature=da454824c97ba181a32ccc17a72625ba02771f50b50e1e7430e47a1f3f457e6c";

api_refusal refusal(const api_request& request, std::int64_t now = docs_time) {
  auto result = verify_api_request(docs_app, request, now);
  if (auto* refused = std::get_if<api_refusal>(&result)) return *refused;
  ADD_FAILURE() << request.query << " was accepted";
  return {};
}

TEST(PusherApiAuth, TheDocumentedRequestIsAccepted) {
  EXPECT_EQ(md5_hex(docs_body), "ec365a775a4cd0599faeb73354201b6f");
  const auto result =
      verify_api_request(docs_app, {"POST", "/apps/3/events", docs_query, docs_body}, docs_time);
  ASSERT_TRUE(std::holds_alternative<query_parameters>(result))
      << std::get<api_refusal>(result).body;
  EXPECT_EQ(std::get<query_parameters>(result).at("auth_key"), docs_app.key);
  // And signing it ourselves gives the documented query, parameters sorted.
  EXPECT_EQ(signed_query(docs_app, "POST", "/apps/3/events", {}, docs_body, docs_time),
            "auth_key=278d425bdf160c739803&auth_timestamp=1353088179&auth_version=1.0&"
            "body_md5=ec365a775a4cd0599faeb73354201b6f&"
            "auth_signature=da454824c97ba181a32ccc17a72625ba02771f50b50e1e7430e47a1f3f457e6c");
}

TEST(PusherApiAuth, TheTimestampMayBe600SecondsOffEitherWay) {
  const api_request request{"POST", "/apps/3/events", docs_query, docs_body};
  for (std::int64_t now : {docs_time - 600, docs_time + 600})
    EXPECT_TRUE(
        std::holds_alternative<query_parameters>(verify_api_request(docs_app, request, now)))
        << now;
  const auto late = refusal(request, docs_time + 601);
  EXPECT_EQ(late.status, 401);
  EXPECT_EQ(late.body,
            "Timestamp expired: Given timestamp (1353088179) not within 600s of server time "
            "(1353088780)");
  EXPECT_EQ(refusal(request, docs_time - 601).status, 401);
}

TEST(PusherApiAuth, EveryPartIsSignedAndTheExpectedSignatureIsNeverTold) {
  const std::string good_signature =
      "da454824c97ba181a32ccc17a72625ba02771f50b50e1e7430e47a1f3f457e6c";
  for (const api_request& changed : {
           api_request{"GET", "/apps/3/events", docs_query, docs_body},
           api_request{"POST", "/apps/4/events", docs_query, docs_body},
           api_request{"POST", "/apps/3/events/", docs_query, docs_body},
       }) {
    const auto refused = refusal(changed);
    EXPECT_EQ(refused.status, 401);
    EXPECT_TRUE(refused.body.starts_with("Invalid signature: ")) << refused.body;
    EXPECT_EQ(refused.body.find(good_signature), std::string::npos);
  }
  const auto wrong = refusal({"GET", "/apps/3/events", docs_query, docs_body});
  EXPECT_EQ(wrong.body,
            "Invalid signature: auth_signature is not the HMAC-SHA256 with the app secret of "
            "\"GET\\n/apps/3/events\\nauth_key=278d425bdf160c739803&auth_timestamp=1353088179&"
            "auth_version=1.0&body_md5=ec365a775a4cd0599faeb73354201b6f\"");
  // The expected signature for what was received is not in the answer either.
  EXPECT_EQ(wrong.body.find(hmac_sha256_hex(docs_app.secret,
                                            "GET\n/apps/3/events\nauth_key=278d425bdf160c739803&"
                                            "auth_timestamp=1353088179&auth_version=1.0&"
                                            "body_md5=ec365a775a4cd0599faeb73354201b6f")),
            std::string::npos);
  // A parameter added after signing is part of what is signed.
  EXPECT_TRUE(refusal({"POST", "/apps/3/events", std::string(docs_query) + "&info=x", docs_body})
                  .body.starts_with("Invalid signature: "));
}

TEST(PusherApiAuth, TheBodyMustBeTheOneWhoseMd5WasSigned) {
  const auto tampered =
      refusal({"POST", "/apps/3/events", docs_query, R"({"name":"bar","channels":["project-3"]})"});
  EXPECT_EQ(tampered.status, 401);
  EXPECT_EQ(tampered.body, "Invalid body_md5: it is not the MD5 of the body received");
  // A body without body_md5: signed without one, still refused.
  const std::string query = signed_query(docs_app, "POST", "/apps/3/events", {}, "", docs_time);
  EXPECT_EQ(refusal({"POST", "/apps/3/events", query, docs_body}).body,
            "Missing parameter: body_md5 (the request has a body)");
}

TEST(PusherApiAuth, QueryValuesAreSignedUnescapedAndSorted) {
  // The Node SDK sends values raw, the PHP SDK percent-encoded: both sign the raw text.
  const std::string raw =
      signed_query(docs_app, "GET", "/apps/3/channels",
                   {{"info", "user_count"}, {"filter_by_prefix", "presence-"}}, "", docs_time);
  EXPECT_TRUE(
      raw.starts_with("auth_key=278d425bdf160c739803&auth_timestamp=1353088179&"
                      "auth_version=1.0&filter_by_prefix=presence-&info=user_count&"
                      "auth_signature="))
      << raw;
  const auto accepted =
      verify_api_request(docs_app, {"GET", "/apps/3/channels", raw, ""}, docs_time);
  ASSERT_TRUE(std::holds_alternative<query_parameters>(accepted));
  EXPECT_EQ(std::get<query_parameters>(accepted).at("filter_by_prefix"), "presence-");

  const std::string with_comma =
      signed_query(docs_app, "GET", "/apps/3/channels/presence-r",
                   {{"info", "user_count,subscription_count"}}, "", docs_time);
  std::string escaped = with_comma;
  escaped.replace(escaped.find(','), 1, "%2C");
  EXPECT_TRUE(std::holds_alternative<query_parameters>(verify_api_request(
      docs_app, {"GET", "/apps/3/channels/presence-r", escaped, ""}, docs_time)));
}

TEST(PusherApiAuth, MalformedAndIncompleteQueries) {
  EXPECT_EQ(refusal({"GET", "/apps/3/channels", "", ""}).body, "Missing parameter: auth_key");
  const std::string good = signed_query(docs_app, "GET", "/apps/3/channels", {}, "", docs_time);
  auto without = [&](const std::string& name) {
    std::string query = "&" + good;
    const auto start = query.find("&" + name + "=");
    const auto end = query.find('&', start + 1);
    query.erase(start, end == std::string::npos ? std::string::npos : end - start);
    return query.substr(1);
  };
  for (const char* name : {"auth_key", "auth_timestamp", "auth_version", "auth_signature"}) {
    const auto missing = refusal({"GET", "/apps/3/channels", without(name), ""});
    EXPECT_EQ(missing.status, 401);
    EXPECT_EQ(missing.body, std::string("Missing parameter: ") + name);
  }
  std::string other_key = good;
  other_key.replace(0, std::string("auth_key=278d425bdf160c739803").size(), "auth_key=nope");
  EXPECT_EQ(refusal({"GET", "/apps/3/channels", other_key, ""}).body, "Unknown auth_key");
  std::string version = good;
  version.replace(version.find("auth_version=1.0"), 16, "auth_version=2.0");
  EXPECT_EQ(refusal({"GET", "/apps/3/channels", version, ""}).body,
            "Unsupported auth_version '2.0': expected 1.0");
  std::string timestamp = good;
  timestamp.replace(timestamp.find("1353088179"), 10, "13530881x9");
  EXPECT_EQ(refusal({"GET", "/apps/3/channels", timestamp, ""}).body,
            "auth_timestamp is not a whole number of seconds since 1970");

  const auto twice = refusal({"GET", "/apps/3/channels", good + "&info=a&info=b", ""});
  EXPECT_EQ(twice.status, 400);
  EXPECT_EQ(twice.body, "Malformed query string: 'info' is given more than once");
  for (const char* bad : {"a=%zz", "a=%2", "a=%"}) {
    const auto escape = refusal({"GET", "/apps/3/channels", good + "&" + bad, ""});
    EXPECT_EQ(escape.status, 400) << bad;
    EXPECT_EQ(escape.body, std::string("Malformed query string: bad %-escape in '") + bad + "'");
  }
  std::string many = good;
  for (int i = 0; i < 61; ++i)
    many += "&p" + std::to_string(i) + "=1";
  EXPECT_EQ(refusal({"GET", "/apps/3/channels", many, ""}).body,
            "Malformed query string: more than 64 parameters");
}

}  // namespace
}  // namespace ringcast::pusher
