// The HTTP API's channel queries and answers (docs/pusher.md, "HTTP API"), given the counts the
// hub holds: which query parameters each route takes, Pusher's 400 for the others, and the JSON
// each route answers.
//   GET /apps/{id}/channels               ?filter_by_prefix=P&info=user_count (P presence-)
//   GET /apps/{id}/channels/{name}        ?info=user_count (presence),subscription_count
//   GET /apps/{id}/channels/{name}/users  (presence channels)
//   POST events / batch_events            with "info": the counts of each channel
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "pusher/pusher_api_auth.hpp"
#include "pusher/pusher_api_events.hpp"

namespace ringcast::pusher {

// A channel as the hub counts it: connections subscribed, distinct users (presence channels).
struct channel_counts {
  std::string name;
  std::size_t subscription_count = 0;
  std::size_t user_count = 0;
};

struct channels_query {
  std::string prefix;  // filter_by_prefix; empty: every channel
  bool user_count = false;
};
std::variant<channels_query, api_refusal> read_channels_query(const query_parameters& query);
// {"channels": {name: {} | {"user_count": N}}}: the occupied channels the prefix matches.
std::string channels_answer(const channels_query& query, const std::vector<channel_counts>& all);

struct channel_query {
  bool user_count = false;
  bool subscription_count = false;
};
std::variant<channel_query, api_refusal> read_channel_query(std::string_view channel,
                                                            const query_parameters& query);
// {"occupied": bool, "user_count"?: N, "subscription_count"?: N}: a channel nobody is on is
// {"occupied": false}, not an error.
std::string channel_answer(const channel_query& query, const channel_counts& counts);

// GET .../users: only for presence channels (400 otherwise); {"users": [{"id": ...}, ...]}.
std::optional<api_refusal> check_users_channel(std::string_view channel);
std::string users_answer(const std::vector<std::string>& user_ids);

// POST events: {} without info, else {"channels": {name: {"subscription_count"?, "user_count"?}}}
// (user_count for presence channels only). `counts` in the event's channel order.
std::string events_answer(const api_event& event, const std::vector<channel_counts>& counts);

// POST batch_events: {} when no event asks for info, else {"batch": [attributes, ...]}, one entry
// per event (`counts` one per event, of its channel).
std::string batch_answer(const std::vector<api_event>& events,
                         const std::vector<channel_counts>& counts);

}  // namespace ringcast::pusher
