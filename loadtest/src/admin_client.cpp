#include "admin_client.hpp"

#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/json.hpp>

namespace ringcast::load {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace json = boost::json;

std::optional<admin_reply> admin_request(const connector& net, const target& server,
                                         const std::string& token, const std::string& method,
                                         const std::string& path,
                                         std::chrono::milliseconds timeout) {
  asio::io_context io;
  net_stream stream(net_stream::socket_type{io});
  deadline reply_deadline(io.get_executor());
  beast::flat_buffer buffer;
  http::request<http::string_body> req{http::string_to_verb(method), path, 11};
  req.set(http::field::host, server.text());
  req.set(http::field::authorization, "Bearer " + token);
  req.keep_alive(false);
  http::response<http::string_body> res;
  bool ok = false;
  net.connect(stream, {asio::ip::make_address_v4(server.host), server.port}, std::nullopt, timeout,
              [&](std::string_view failure) {
                if (!failure.empty()) return;
                reply_deadline.arm(stream, timeout);
                http::async_write(stream, req, [&](boost::system::error_code wec, std::size_t) {
                  if (wec) return;
                  http::async_read(stream, buffer, res,
                                   [&](boost::system::error_code rec, std::size_t) {
                                     ok = !rec;
                                     reply_deadline.cancel();
                                   });
                });
              });
  io.run();
  stream.close();
  if (!ok) return std::nullopt;
  return admin_reply{res.result_int(), std::move(res.body())};
}

void server_counters::add(const server_counters& other) {
  sessions_reused += other.sessions_reused;
  connections += other.connections;
  for (const auto& [k, n] : other.expirations)
    expirations[k] += n;
}

std::optional<server_counters> parse_stats(const json::value& stats) {
  const auto* o = stats.if_object();
  if (!o) return std::nullopt;
  server_counters c;
  const auto number = [](const json::value* v) -> std::uint64_t {
    return v && v->is_number() ? v->to_number<std::uint64_t>() : 0;
  };
  c.sessions_reused = number(o->if_contains("sessions_reused"));
  if (const auto* conns = o->if_contains("connections"); conns && conns->is_object()) {
    c.connections = number(conns->as_object().if_contains("total"));
  }
  if (const auto* exp = o->if_contains("expirations"); exp && exp->is_object()) {
    for (const auto& [k, v] : exp->as_object())
      c.expirations[std::string(k)] = number(&v);
  }
  return c;
}

std::optional<server_counters> scrape_stats(const options& opts, std::string* why) {
  if (opts.kind == server_kind::nchan) {
    *why = "nchan has no /admin/stats";
    return std::nullopt;
  }
  const connector net(opts);
  server_counters total;
  for (const auto& t : opts.targets) {
    const auto reply =
        admin_request(net, t, opts.admin_token, "GET", "/admin/stats", std::chrono::seconds(5));
    if (!reply) {
      *why = t.text() + ": no answer";
      return std::nullopt;
    }
    if (reply->status != 200) {
      *why = t.text() + ": HTTP " + std::to_string(reply->status);
      return std::nullopt;
    }
    boost::system::error_code ec;
    const auto parsed = parse_stats(json::parse(reply->body, ec));
    if (ec || !parsed) {
      *why = t.text() + ": stats are not a JSON object";
      return std::nullopt;
    }
    total.add(*parsed);
  }
  return total;
}

}  // namespace ringcast::load
