// Every path the HTTP connection answers, in one table read once per request: a path (exact, or
// a prefix ending in '/') and a method lead to a handler, or to a client transport for /ws, /sse
// and /poll. The table also holds the rules that used to be written into each API: every path
// under /admin/ needs the admin token before anything else is told (401 before 404 and 405), a
// method a path does not take is a 405 with Allow, and a path without a route is the pages'
// (GET/HEAD), or 404 under /admin/. A request with a body is judged from its header before a
// byte of the body is read (judge_body): only an authorized request to a method that takes a
// body gets it read, within that method's limit. Built once by the server (node_routes.hpp).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/beast/http/verb.hpp>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/transport.hpp"
#include "protocol/http_reply.hpp"

namespace ringcast {

class request_context;
struct connection_settings;

// The one method /ws, /sse and /poll take (admission answers any other 405).
inline constexpr boost::beast::http::verb client_method = boost::beast::http::verb::get;

// One request to a handler: `rest` is what a prefix route's path leaves ("<id>" of
// /admin/scheduled/<id>); `reply` may run later, on the connection's loop.
struct route_call {
  const http_request& request;
  std::string_view rest;
  request_context& connection;
  std::function<void(http_response)> reply;

  // Where an answer that comes later is to run: the connection's loop.
  boost::asio::any_io_executor origin() const;
};

class route_table {
 public:
  using handler = std::function<void(const route_call&)>;

  class route {
   public:
    // A method that takes no body (a request with one is refused from its header).
    route& on(boost::beast::http::verb method, handler h);
    // A method that takes a body of at most `limit` bytes (none: --max-body).
    route& on_body(boost::beast::http::verb method, handler h,
                   std::optional<std::uint64_t> limit = std::nullopt);
    // Answered whatever the Host (--allowed-hosts): /healthz, for load balancers that probe by
    // address.
    route& any_host();
    // The 405's message, when it is not "use <Allow>".
    route& wrong_method(std::string message);

    // /ws, /sse, /poll: admitted (admission.hpp, which checks the method) and given to the
    // transport; no handler.
    std::optional<transport> client() const { return client_; }
    bool answers_any_host() const { return any_host_; }

   private:
    friend class route_table;
    struct method_route {
      boost::beast::http::verb verb;
      handler answer;
      bool takes_body = false;
      std::optional<std::uint64_t> body_limit;  // with takes_body; none: --max-body
    };
    std::string path_;
    std::vector<method_route> methods_;
    std::string allow_;  // the methods, "GET, DELETE", for a 405's Allow
    std::string wrong_method_;
    std::optional<transport> client_;
    bool any_host_ = false;
  };

  // The route of `path` (with a trailing '/': of every longer path under it). The reference is
  // for chaining at build time only.
  route& add(std::string path);
  route& add_client(std::string path, transport t);
  // What answers a path without a route outside /admin/ (the pages).
  route& otherwise();

  struct match {
    const route* found = nullptr;  // null: no such path
    std::string_view rest;
    bool admin = false;  // under /admin/: the admin token first
  };
  match find(std::string_view path) const;
  // Answers a request that is not a client connect: 401 (an /admin/ path without the admin
  // token), 404, 405, or the route's handler.
  void answer(const match& m, const route_call& call) const;

  // A request whose header says a body follows, before any of it is read: refused (400 or 405
  // for a client endpoint, 401 for /admin/ without the admin token, 404, 405, 413 for a method
  // that takes no body or a Content-Length over its limit), or the most its body may be.
  struct body_verdict {
    std::optional<http_response> refusal;
    std::uint64_t limit = 0;
  };
  // `content_length`: the header's, none when the body is chunked (its limit applies as it is
  // read).
  body_verdict judge_body(const match& m, const http_request& header,
                          std::optional<std::uint64_t> content_length,
                          const connection_settings& settings) const;

  // Every route as JSON, in the order they are matched:
  // {"routes":[{"path":"/ws","prefix":false,"methods":["GET"],"client":"ws"},...],
  //  "otherwise":["GET","HEAD"]} (a prefix route's path ends in '/'; "otherwise": the methods of
  // the pages, every other path outside /admin/). --print-routes prints it.
  std::string describe_json() const;

 private:
  // The 401, 404 or 405 a request gets before its handler, if any.
  std::optional<http_response> refusal(const match& m, const http_request& req,
                                       std::string_view admin_token) const;

  // A dozen or so routes: a scan costs less than the request's parsing, and keeps the order in
  // which they were added (an exact path and a prefix never overlap).
  std::vector<route> routes_;
  route otherwise_;
};

// Compares in time that depends only on the lengths, not on where the strings differ.
bool same_token(std::string_view given, std::string_view expected);

}  // namespace ringcast
