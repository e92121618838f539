#include "protocol/client_params.hpp"

#include <algorithm>
#include <array>
#include <charconv>

#include <boost/url/decode_view.hpp>
#include <boost/url/parse.hpp>

#include "protocol/duration.hpp"

namespace ringcast {
namespace {

constexpr bool identifier_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == ':' || c == '@' || c == '-';
}

std::string rule_for(std::string_view name) {
  return std::string{name} + ": " + std::string{identifier_rule};
}

// The parameters this parser reads. A repeat of one of them is refused rather than resolved
// (first wins? last wins?), because proxies and client libraries disagree on the answer.
constexpr std::array<std::string_view, 6> known_params = {"user",     "sid",   "since",
                                                          "channels", "token", "rewind"};

// Splits `list` on commas into `out`, skipping names already present. An empty list is no channels.
std::string split_channels(std::string_view list, std::vector<std::string>& out) {
  if (list.empty()) return {};
  for (;;) {
    const auto comma = list.find(',');
    const auto name = list.substr(0, comma);
    if (!valid_identifier(name)) return rule_for("channels");
    if (std::find(out.begin(), out.end(), name) == out.end()) {
      // Refused at the 33rd distinct name, without reading the rest of the list.
      if (out.size() == max_channels_per_client) return "channels: at most 32";
      out.emplace_back(name);
    }
    if (comma == std::string_view::npos) return {};
    list.remove_prefix(comma + 1);
  }
}

// "rewind": a bare number is a count (1-100); with a unit ("30s", "2m") a duration above 0.
std::string parse_rewind(std::string_view value, client_params& params) {
  constexpr std::string_view rule =
      "rewind: a count from 1 to 100, or a duration such as 30s or 2m";
  if (!value.empty() &&
      std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    std::size_t n = 0;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
    if (ec != std::errc{} || end != value.data() + value.size() || n < 1 || n > max_rewind_count)
      return std::string{rule};
    params.rewind_count = n;
    return {};
  }
  const auto d = parse_duration(value);
  if (!d || d.value->count() <= 0) return std::string{rule};
  params.rewind_for = *d.value;
  return {};
}

}  // namespace

bool valid_identifier(std::string_view text) {
  return !text.empty() && text.size() <= max_identifier_length &&
         std::all_of(text.begin(), text.end(), identifier_char);
}

std::optional<std::uint64_t> parse_message_id(std::string_view text) {
  // from_chars already refuses '+', '-' and spaces for an unsigned type; only a full match counts.
  std::uint64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return id;
}

parsed<client_params> parse_client_params(std::string_view target, bool user_required) {
  using result = parsed<client_params>;
  const auto url = boost::urls::parse_origin_form(target);
  if (!url) return result::fail("malformed request target");

  client_params params;
  std::array<bool, known_params.size()> seen{};
  // Decoded as url_view::params() would ('+' as a space), but only the known keys' values are
  // decoded into strings: params() makes a string of every key and value, a tenth of a connect's
  // user time (docs/performance.md §21).
  const boost::urls::encoding_opts as_form{/*space_as_plus=*/true, false, false};
  for (const auto& param : url->encoded_params()) {
    const boost::urls::decode_view key(param.key, as_form);
    const auto known = std::find_if(known_params.begin(), known_params.end(),
                                    [&](std::string_view name) { return key == name; });
    if (known == known_params.end()) continue;
    const std::string_view name = *known;
    auto& was_seen = seen[static_cast<std::size_t>(known - known_params.begin())];
    if (was_seen) return result::fail(std::string{name} + ": given more than once");
    was_seen = true;

    std::string value = param.value.decode(as_form);
    if (name == "user") {
      if (!valid_identifier(value)) return result::fail(rule_for("user"));
      params.user = std::move(value);
    } else if (name == "sid") {
      if (!valid_identifier(value)) return result::fail(rule_for("sid"));
      params.sid = std::move(value);
      params.sid_given = true;
    } else if (name == "since") {
      params.since = parse_message_id(value);
      if (!params.since)
        return result::fail("since: expected a message id (0-18446744073709551615)");
    } else if (name == "channels") {
      if (auto error = split_channels(value, params.channels); !error.empty())
        return result::fail(std::move(error));
    } else if (name == "token") {
      params.token = std::move(value);
    } else if (name == "rewind") {
      if (auto error = parse_rewind(value, params); !error.empty())
        return result::fail(std::move(error));
    }
  }
  if (params.user.empty() && user_required)
    return result::fail("user: required, " + std::string{identifier_rule});
  return result::ok(std::move(params));
}

bool within_grant(const std::optional<std::vector<std::string>>& allowed,
                  std::string_view channel) {
  return !allowed || std::find(allowed->begin(), allowed->end(), channel) != allowed->end();
}

void grant_channels(client_params& params, const std::vector<std::string>& channels) {
  if (!params.allowed_channels) {
    params.allowed_channels = channels;
    return;
  }
  std::erase_if(*params.allowed_channels, [&](const std::string& c) {
    return std::find(channels.begin(), channels.end(), c) == channels.end();
  });
}

std::optional<std::string> channel_not_granted(const client_params& params) {
  for (const auto& c : params.channels)
    if (!within_grant(params.allowed_channels, c)) return c;
  return std::nullopt;
}

void keep_granted_channels(client_params& params) {
  std::erase_if(params.channels,
                [&](const std::string& c) { return !within_grant(params.allowed_channels, c); });
}

}  // namespace ringcast
