// Each flag's value parsed on its own (declared in flags.hpp: the transport mix, targets,
// durations, the server kind, --payload's members) and the pieces they share with parse_flags;
// parse_flags (flags.cpp) holds the table of flags and the checks across them.
#include "flag_values.hpp"

#include <arpa/inet.h>

#include <boost/json/parse.hpp>

#include <cctype>
#include <cmath>
#include <string>

#include "protocol/duration.hpp"
#include "protocol/flag_parser_error.hpp"

namespace ringcast::load {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> parts;
  while (true) {
    const auto at = text.find(sep);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + 1);
  }
}

double parse_number(std::string_view text, std::string_view what, double lo, double hi) {
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size() ||
      !std::isfinite(value) || value < lo || value > hi) {
    throw flag_error(fmt::format("{}: '{}' is not a number in [{}, {}]", what, text, lo, hi));
  }
  return value;
}

server_kind parse_server_kind(std::string_view text) {
  if (text == "ringcast") return server_kind::ringcast;
  if (text == "nchan") return server_kind::nchan;
  if (text == "pusher") return server_kind::pusher;
  throw flag_error(fmt::format("--server-kind: '{}' is not ringcast, nchan or pusher", text));
}

// The server's duration syntax (server/protocol/duration.hpp), so both tools read "90s" alike.
std::chrono::milliseconds duration_flag(std::string_view text, std::string_view flag) {
  auto d = parse_duration(text);
  if (!d) throw flag_error(fmt::format("{}: {}", flag, d.error));
  return *d.value;
}

transport_mix parse_mix(std::string_view text) {
  transport_mix mix;
  mix.weight = {0, 0, 0};
  for (const auto part : split(text, ',')) {
    const auto eq = part.find('=');
    const auto name = part.substr(0, eq);
    // A bare name ("--mix sse") means that transport only.
    const unsigned weight =
        eq == std::string_view::npos ? 1 : parse_whole<unsigned>(part.substr(eq + 1), "--mix");
    bool known = false;
    for (const auto t : all_transports) {
      if (name == name_of(t)) {
        if (mix.weight[static_cast<int>(t)] != 0) {
          throw flag_error(fmt::format("--mix: '{}' given twice", name));
        }
        mix.weight[static_cast<int>(t)] = weight;
        known = true;
      }
    }
    if (!known) {
      throw flag_error(fmt::format("--mix: unknown transport '{}' (ws, sse or poll)", name));
    }
  }
  if (mix.total() == 0) throw flag_error("--mix: every weight is zero");
  return mix;
}

target parse_target(std::string_view text) {
  const auto colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    throw flag_error(fmt::format("target '{}': expected HOST:PORT", text));
  }
  std::string host{text.substr(0, colon)};
  if (host == "localhost") host = "127.0.0.1";
  in_addr addr{};
  if (inet_pton(AF_INET, host.c_str(), &addr) != 1) {
    throw flag_error(fmt::format("target '{}': host must be an IPv4 address", text));
  }
  // The tool opens thousands of connections: it must never be pointed at another machine.
  if ((ntohl(addr.s_addr) >> 24) != 127) {
    throw flag_error(fmt::format("target '{}': only loopback (127.0.0.0/8) is allowed", text));
  }
  const auto port = parse_whole<std::uint16_t>(text.substr(colon + 1), "target port");
  if (port == 0) throw flag_error(fmt::format("target '{}': port 0", text));
  return {host, port};
}

std::vector<target> parse_targets(std::string_view text) {
  std::vector<target> out;
  for (const auto part : split(text, ','))
    out.push_back(parse_target(part));
  return out;
}

std::string payload_members(std::string_view text) {
  boost::system::error_code ec;
  const auto v = boost::json::parse(text, ec);
  if (ec || !v.is_object()) throw flag_error("not a JSON object");
  if (v.as_object().contains("t") || v.as_object().contains("seq"))
    throw flag_error("\"t\" and \"seq\" are the tool's own members");
  // Kept as written (the bytes the benchmark means to send), without the outer braces.
  const auto open = text.find('{');
  const auto close = text.rfind('}');
  std::string_view inner = text.substr(open + 1, close - open - 1);
  while (!inner.empty() && std::isspace(static_cast<unsigned char>(inner.front())))
    inner.remove_prefix(1);
  while (!inner.empty() && std::isspace(static_cast<unsigned char>(inner.back())))
    inner.remove_suffix(1);
  return std::string(inner);
}

}  // namespace ringcast::load
