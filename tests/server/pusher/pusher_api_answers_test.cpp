// The HTTP API's channel queries and answers (server/pusher/pusher_api_answers), given counts as
// the hub would hold them.
#include "pusher/pusher_api_answers.hpp"

#include <string>

#include <gtest/gtest.h>

namespace ringcast::pusher {
namespace {

template <class T>
T accepted(const std::variant<T, api_refusal>& result) {
  if (const auto* refused = std::get_if<api_refusal>(&result)) {
    ADD_FAILURE() << refused->body;
    return T{};
  }
  return std::get<T>(result);
}

template <class T>
api_refusal refused(const std::variant<T, api_refusal>& result) {
  if (const auto* r = std::get_if<api_refusal>(&result)) return *r;
  ADD_FAILURE() << "accepted";
  return {};
}

const std::vector<channel_counts> hub{
    {"orders", 3, 0}, {"presence-room", 4, 2}, {"presence-empty", 0, 0}, {"presence-lobby", 1, 1}};

TEST(PusherApiAnswers, ChannelsListsTheOccupiedOnesThePrefixMatches) {
  EXPECT_EQ(channels_answer(accepted(read_channels_query({})), hub),
            R"({"channels":{"orders":{},"presence-room":{},"presence-lobby":{}}})");
  const auto users =
      accepted(read_channels_query({{"filter_by_prefix", "presence-"}, {"info", "user_count"}}));
  EXPECT_EQ(channels_answer(users, hub),
            R"({"channels":{"presence-room":{"user_count":2},"presence-lobby":{"user_count":1}}})");
  EXPECT_EQ(channels_answer(accepted(read_channels_query({{"filter_by_prefix", "private-"}})), hub),
            R"({"channels":{}})");

  EXPECT_EQ(refused(read_channels_query({{"info", "user_count"}})).body,
            "info=user_count needs filter_by_prefix=presence-: only presence channels have users");
  EXPECT_EQ(refused(read_channels_query({{"info", "subscription_count"}})).body,
            "info: unknown attribute 'subscription_count' (user_count)");
}

TEST(PusherApiAnswers, OneChannelNobodyIsOnIsUnoccupiedNotAnError) {
  const auto both =
      accepted(read_channel_query("presence-room", {{"info", "user_count,subscription_count"}}));
  EXPECT_EQ(channel_answer(both, hub[1]),
            R"({"occupied":true,"user_count":2,"subscription_count":4})");
  EXPECT_EQ(channel_answer(accepted(read_channel_query("gone", {})), {"gone", 0, 0}),
            R"({"occupied":false})");
  EXPECT_EQ(channel_answer(accepted(read_channel_query("orders", {{"info", "subscription_count"}})),
                           hub[0]),
            R"({"occupied":true,"subscription_count":3})");

  const auto not_presence = refused(read_channel_query("orders", {{"info", "user_count"}}));
  EXPECT_EQ(not_presence.status, 400);
  EXPECT_EQ(not_presence.body, "info=user_count is for presence channels; 'orders' is not one");
  EXPECT_EQ(refused(read_channel_query("a b", {})).body,
            "channel name 'a b' has a character outside [A-Za-z0-9_\\-=@,.;]");
  EXPECT_EQ(refused(read_channel_query("orders", {{"info", "cache"}})).body,
            "info: unknown attribute 'cache' (user_count, subscription_count)");
}

TEST(PusherApiAnswers, UsersOfPresenceChannelsOnly) {
  EXPECT_EQ(check_users_channel("presence-room"), std::nullopt);
  const auto refusal = check_users_channel("private-room");
  ASSERT_TRUE(refusal);
  EXPECT_EQ(refusal->status, 400);
  EXPECT_EQ(refusal->body, "users are listed for presence channels; 'private-room' is not one");
  EXPECT_EQ(users_answer({"1", "ann"}), R"({"users":[{"id":"1"},{"id":"ann"}]})");
  EXPECT_EQ(users_answer({}), R"({"users":[]})");
}

TEST(PusherApiAnswers, PublishingAnswersTheCountsAskedFor) {
  api_event plain{"n", {"orders"}, "d", std::nullopt, false, false};
  EXPECT_EQ(events_answer(plain, {hub[0]}), "{}");
  api_event info{"n", {"orders", "presence-room"}, "d", std::nullopt, true, true};
  EXPECT_EQ(events_answer(info, {hub[0], hub[1]}),
            R"({"channels":{"orders":{"subscription_count":3},)"
            R"("presence-room":{"subscription_count":4,"user_count":2}}})");
  EXPECT_EQ(batch_answer({plain, plain}, {hub[0], hub[0]}), "{}");
  api_event users{"n", {"presence-room"}, "d", std::nullopt, true, false};
  EXPECT_EQ(batch_answer({plain, users}, {hub[0], hub[1]}), R"({"batch":[{},{"user_count":2}]})");
}

}  // namespace
}  // namespace ringcast::pusher
