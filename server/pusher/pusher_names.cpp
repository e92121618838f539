#include "pusher/pusher_names.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace ringcast::pusher {
namespace {

bool channel_character(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
         std::string_view("_-=@,.;").find(c) != std::string_view::npos;
}

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

channel_traits traits_of(std::string_view channel) {
  // Longest prefixes first: "private-encrypted-cache-" is also "private-".
  struct prefix {
    std::string_view text;
    channel_traits traits;
  };
  static constexpr std::array<prefix, 7> prefixes{{
      {"private-encrypted-cache-", {channel_kind::private_encrypted, true}},
      {"private-encrypted-", {channel_kind::private_encrypted, false}},
      {"private-cache-", {channel_kind::private_, true}},
      {"private-", {channel_kind::private_, false}},
      {"presence-cache-", {channel_kind::presence, true}},
      {"presence-", {channel_kind::presence, false}},
      {"cache-", {channel_kind::public_, true}},
  }};
  for (const auto& p : prefixes)
    if (starts_with(channel, p.text)) return p.traits;
  return {};
}

parsed<channel_traits> check_channel_name(std::string_view channel) {
  using result = parsed<channel_traits>;
  if (channel.empty()) return result::fail("channel name is empty");
  if (channel.size() > max_channel_name)
    return result::fail(
        fmt::format("channel name is {} characters; at most {}", channel.size(), max_channel_name));
  const auto bad = std::find_if_not(channel.begin(), channel.end(), channel_character);
  if (bad != channel.end())
    return result::fail(
        fmt::format("channel name '{}' has a character outside [A-Za-z0-9_\\-=@,.;]", channel));
  return result::ok(traits_of(channel));
}

std::optional<std::string_view> server_to_user_id(std::string_view channel) {
  if (!starts_with(channel, server_to_user_prefix)) return std::nullopt;
  return channel.substr(server_to_user_prefix.size());
}

std::string check_user_id(std::string_view id) {
  if (id.empty()) return "user id is empty";
  if (const auto length = javascript_length(id); length > max_user_id)
    return fmt::format("user id is {} characters; at most {}", length, max_user_id);
  return {};
}

std::string check_publish_channel(std::string_view channel) {
  if (const auto user = server_to_user_id(channel)) return check_user_id(*user);
  const auto name = check_channel_name(channel);
  return name ? std::string{} : name.error;
}

std::size_t javascript_length(std::string_view text) {
  std::size_t units = 0;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte & 0xc0) != 0x80) ++units;  // each character's first byte
    if (byte >= 0xf0) ++units;           // beyond U+FFFF: a surrogate pair
  }
  return units;
}

std::string check_event_name(std::string_view event) {
  if (event.empty()) return "event name is empty";
  if (const auto length = javascript_length(event); length > max_event_name)
    return fmt::format("event name is {} characters; at most {}", length, max_event_name);
  return {};
}

std::string check_client_event_name(std::string_view event) {
  if (!starts_with(event, "client-"))
    return fmt::format("client event '{}' does not start with 'client-'", event);
  return check_event_name(event);
}

std::string make_socket_id(std::uint64_t high, std::uint64_t low) {
  return fmt::format("{}.{}", high, low);
}

bool valid_socket_id(std::string_view id) {
  const auto dot = id.find('.');
  // Two uint64 at most: 20 digits each.
  return dot != std::string_view::npos && dot <= 20 && id.size() - dot - 1 <= 20 &&
         digits(id.substr(0, dot)) && digits(id.substr(dot + 1));
}

}  // namespace ringcast::pusher
