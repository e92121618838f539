// The route table's own rules, without sockets: what an /admin/ path without the token is told,
// a prefix route's rest, 405 with Allow, and the pages for every other path. The handlers here
// record which route answered; the APIs' own answers are the integration tests'.
#include <boost/beast/http/field.hpp>

#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "../net/test_loop.hpp"
#include "api/route_table.hpp"

namespace ringcast {
namespace {

namespace http = boost::beast::http;

class RouteTable : public ::testing::Test {
 protected:
  RouteTable() : loop_(config{}) {
    loop_.mutable_settings().admin_token = "secret";
    routes_.add("/open").any_host().on(http::verb::get, answered_by("open"));
    routes_.add("/admin/list").on(http::verb::get, answered_by("list"));
    routes_.add("/admin/post").on_body(http::verb::post, answered_by("post"));
    routes_.add("/small").on_body(http::verb::post, answered_by("small"), 100);
    routes_.add("/admin/item/")
        .on(http::verb::get, answered_by("item"))
        .on(http::verb::delete_, answered_by("item"));
    routes_.add_client("/sse", transport::sse);
    routes_.otherwise().on(http::verb::get, answered_by("page")).wrong_method("use GET");
  }

  route_table::handler answered_by(std::string name) {
    return [this, name](const route_call& call) {
      rest_ = std::string(call.rest);
      call.reply(make_response(http_status::ok, name, "text/plain", call.request));
    };
  }

  // What the table answers to `method path`, with the admin token or without.
  http_response ask(http::verb method, std::string_view path, bool with_token = true) {
    http_request req{method, path, 11};
    if (with_token) req.set(http::field::authorization, "Bearer secret");
    std::optional<http_response> got;
    routes_.answer(routes_.find(path),
                   {req, routes_.find(path).rest, loop_, [&](http_response r) { got = r; }});
    EXPECT_TRUE(got) << path;  // every answer here is synchronous
    return got.value_or(http_response{});
  }

  test::test_loop loop_;
  route_table routes_;
  std::string rest_;
};

TEST_F(RouteTable, AnAdminPathWithoutTheTokenIsRefusedBeforeItIsLookedUp) {
  EXPECT_EQ(ask(http::verb::get, "/admin/list", false).result(), http::status::unauthorized);
  EXPECT_EQ(ask(http::verb::get, "/admin/nothing", false).result(), http::status::unauthorized);
  EXPECT_EQ(ask(http::verb::post, "/admin/list", false).result(), http::status::unauthorized);
  EXPECT_EQ(ask(http::verb::get, "/admin/nothing").result(), http::status::not_found);
  EXPECT_EQ(ask(http::verb::get, "/admin/list").body(), "list");
}

TEST_F(RouteTable, APrefixRouteWantsSomethingAfterItsSlash) {
  EXPECT_EQ(ask(http::verb::delete_, "/admin/item/42").body(), "item");
  EXPECT_EQ(rest_, "42");
  EXPECT_EQ(ask(http::verb::get, "/admin/item/").result(), http::status::not_found);
  EXPECT_EQ(ask(http::verb::get, "/admin/item").result(), http::status::not_found);
}

TEST_F(RouteTable, AMethodAPathDoesNotTakeIs405WithAllow) {
  const auto item = ask(http::verb::post, "/admin/item/42");
  EXPECT_EQ(item.result(), http::status::method_not_allowed);
  EXPECT_EQ(item[http::field::allow], "GET, DELETE");
  EXPECT_NE(item.body().find("use GET, DELETE"), std::string::npos) << item.body();
  const auto page = ask(http::verb::put, "/anything");
  EXPECT_EQ(page.result(), http::status::method_not_allowed);
  EXPECT_EQ(page[http::field::allow], "GET");
  EXPECT_NE(page.body().find("\"use GET\""), std::string::npos) << page.body();
}

TEST_F(RouteTable, EveryOtherPathOutsideAdminIsThePages) {
  EXPECT_EQ(ask(http::verb::get, "/", false).body(), "page");
  EXPECT_EQ(ask(http::verb::get, "/admin", false).body(), "page");
  EXPECT_EQ(ask(http::verb::get, "/open", false).body(), "open");
}

TEST_F(RouteTable, FindsTheClientTransportAndWhoAnswersAnyHost) {
  const auto sse = routes_.find("/sse");
  ASSERT_TRUE(sse.found);
  EXPECT_EQ(sse.found->client(), transport::sse);
  EXPECT_TRUE(routes_.find("/open").found->answers_any_host());
  EXPECT_FALSE(routes_.find("/").found->answers_any_host());
  EXPECT_FALSE(routes_.find("/").found->client());
}

// Issue 35: a body is judged from the request's header, before any of it is read. Without the
// admin token an /admin/ request is 401 whatever its Content-Length; a method that takes no body
// is 413; a body over its method's limit is 413 from its Content-Length.
TEST_F(RouteTable, ABodyIsJudgedFromTheHeaderBeforeItIsRead) {
  loop_.mutable_settings().max_body = 1000;
  const auto judge = [this](http::verb method, std::string_view path, std::uint64_t length,
                            bool with_token = true) {
    http_request req{method, path, 11};
    if (with_token) req.set(http::field::authorization, "Bearer secret");
    req.set(http::field::content_length, std::to_string(length));
    return routes_.judge_body(routes_.find(path), req, length, loop_.settings());
  };
  const auto status = [](const route_table::body_verdict& v) {
    return v.refusal ? v.refusal->result() : http::status::ok;
  };
  EXPECT_EQ(status(judge(http::verb::post, "/admin/post", 1'000'000'000, false)),
            http::status::unauthorized);
  EXPECT_EQ(status(judge(http::verb::post, "/admin/nothing", 10, false)),
            http::status::unauthorized);
  EXPECT_EQ(status(judge(http::verb::post, "/admin/post", 1001)), http::status::payload_too_large);
  const auto admitted = judge(http::verb::post, "/admin/post", 1000);
  EXPECT_FALSE(admitted.refusal);
  EXPECT_EQ(admitted.limit, 1000u);
  EXPECT_EQ(status(judge(http::verb::get, "/admin/list", 10)), http::status::payload_too_large);
  EXPECT_EQ(status(judge(http::verb::post, "/admin/list", 10)), http::status::method_not_allowed);
  EXPECT_EQ(status(judge(http::verb::get, "/", 10, false)), http::status::payload_too_large);
  EXPECT_EQ(status(judge(http::verb::get, "/open", 10, false)), http::status::payload_too_large);
  EXPECT_EQ(status(judge(http::verb::post, "/small", 101, false)), http::status::payload_too_large);
  EXPECT_EQ(judge(http::verb::post, "/small", 100, false).limit, 100u);
  EXPECT_EQ(status(judge(http::verb::get, "/sse", 10, false)), http::status::bad_request);
  EXPECT_EQ(status(judge(http::verb::post, "/sse", 10, false)), http::status::method_not_allowed);
}

// --print-routes prints this; tests/integration/openapi_routes.test.mjs reads it.
TEST_F(RouteTable, DescribesEveryRouteInOrderWithItsMethods) {
  EXPECT_EQ(routes_.describe_json(),
            R"({"routes":[)"
            R"({"path":"/open","prefix":false,"methods":["GET"]},)"
            R"({"path":"/admin/list","prefix":false,"methods":["GET"]},)"
            R"({"path":"/admin/post","prefix":false,"methods":["POST"]},)"
            R"({"path":"/small","prefix":false,"methods":["POST"]},)"
            R"({"path":"/admin/item/","prefix":true,"methods":["GET","DELETE"]},)"
            R"({"path":"/sse","prefix":false,"methods":["GET","OPTIONS"],"client":"sse"}],)"
            R"("otherwise":["GET"]})");
}

TEST(RouteTableWithoutPages, AnyOtherPathIsNotFound) {
  test::test_loop loop(config{});
  route_table routes;
  routes.add("/only").on(http::verb::get, [](const route_call&) {});
  http_request req{http::verb::get, "/elsewhere", 11};
  std::optional<http_response> got;
  routes.answer(routes.find("/elsewhere"), {req, {}, loop, [&](http_response r) { got = r; }});
  ASSERT_TRUE(got);
  EXPECT_EQ(got->result(), http::status::not_found);
}

}  // namespace
}  // namespace ringcast
