#include "pusher/pusher_api_answers.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <boost/json.hpp>

#include "protocol/comma_list.hpp"
#include "pusher/pusher_names.hpp"

namespace ringcast::pusher {
namespace {

namespace json = boost::json;

api_refusal bad(std::string why) {
  return {400, std::move(why)};
}

bool presence(std::string_view channel) {
  return traits_of(channel).kind == channel_kind::presence;
}

// The info attributes asked for, each of `allowed`, or the refusal.
std::variant<std::vector<std::string>, api_refusal> info_of(const query_parameters& query,
                                                            std::vector<std::string_view> allowed) {
  std::vector<std::string> asked;
  const auto info = query.find("info");
  if (info == query.end()) return asked;
  for (const auto attribute : comma_list(info->second)) {
    if (std::find(allowed.begin(), allowed.end(), attribute) == allowed.end())
      return bad(
          fmt::format("info: unknown attribute '{}' ({})", attribute, fmt::join(allowed, ", ")));
    asked.emplace_back(attribute);
  }
  return asked;
}

bool has(const std::vector<std::string>& asked, std::string_view attribute) {
  return std::find(asked.begin(), asked.end(), attribute) != asked.end();
}

}  // namespace

std::variant<channels_query, api_refusal> read_channels_query(const query_parameters& query) {
  auto info = info_of(query, {"user_count"});
  if (auto* refusal = std::get_if<api_refusal>(&info)) return std::move(*refusal);
  channels_query out;
  if (const auto prefix = query.find("filter_by_prefix"); prefix != query.end())
    out.prefix = prefix->second;
  out.user_count = has(std::get<std::vector<std::string>>(info), "user_count");
  if (out.user_count && !out.prefix.starts_with("presence-"))
    return bad(
        "info=user_count needs filter_by_prefix=presence-: only presence channels have "
        "users");
  return out;
}

std::string channels_answer(const channels_query& query, const std::vector<channel_counts>& all) {
  json::object channels;
  for (const auto& c : all) {
    if (c.subscription_count == 0 || !c.name.starts_with(query.prefix)) continue;
    json::object attributes;
    if (query.user_count) attributes["user_count"] = c.user_count;
    channels[c.name] = std::move(attributes);
  }
  return json::serialize(json::object{{"channels", std::move(channels)}});
}

std::variant<channel_query, api_refusal> read_channel_query(std::string_view channel,
                                                            const query_parameters& query) {
  if (const auto name = check_channel_name(channel); !name) return bad(name.error);
  auto info = info_of(query, {"user_count", "subscription_count"});
  if (auto* refusal = std::get_if<api_refusal>(&info)) return std::move(*refusal);
  const auto& asked = std::get<std::vector<std::string>>(info);
  channel_query out{has(asked, "user_count"), has(asked, "subscription_count")};
  if (out.user_count && !presence(channel))
    return bad(fmt::format("info=user_count is for presence channels; '{}' is not one", channel));
  return out;
}

std::string channel_answer(const channel_query& query, const channel_counts& counts) {
  json::object out{{"occupied", counts.subscription_count > 0}};
  if (query.user_count) out["user_count"] = counts.user_count;
  if (query.subscription_count) out["subscription_count"] = counts.subscription_count;
  return json::serialize(out);
}

std::optional<api_refusal> check_users_channel(std::string_view channel) {
  if (const auto name = check_channel_name(channel); !name) return bad(name.error);
  if (!presence(channel))
    return bad(fmt::format("users are listed for presence channels; '{}' is not one", channel));
  return std::nullopt;
}

std::string users_answer(const std::vector<std::string>& user_ids) {
  json::array users;
  for (const auto& id : user_ids)
    users.push_back(json::object{{"id", id}});
  return json::serialize(json::object{{"users", std::move(users)}});
}

namespace {

bool wants_info(const api_event& event) {
  return event.user_count || event.subscription_count;
}

json::object attributes_of(const api_event& event, const channel_counts& c) {
  json::object attributes;
  if (event.subscription_count) attributes["subscription_count"] = c.subscription_count;
  if (event.user_count && presence(c.name)) attributes["user_count"] = c.user_count;
  return attributes;
}

}  // namespace

std::string events_answer(const api_event& event, const std::vector<channel_counts>& counts) {
  if (!wants_info(event)) return "{}";
  json::object channels;
  for (const auto& c : counts)
    channels[c.name] = attributes_of(event, c);
  return json::serialize(json::object{{"channels", std::move(channels)}});
}

std::string batch_answer(const std::vector<api_event>& events,
                         const std::vector<channel_counts>& counts) {
  if (std::none_of(events.begin(), events.end(), wants_info)) return "{}";
  json::array batch;
  for (std::size_t i = 0; i < events.size() && i < counts.size(); ++i)
    batch.push_back(attributes_of(events[i], counts[i]));
  return json::serialize(json::object{{"batch", std::move(batch)}});
}

}  // namespace ringcast::pusher
