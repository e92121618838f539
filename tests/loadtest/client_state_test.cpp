#include "client_state.hpp"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <vector>

namespace ringcast::load {
namespace {

// A broadcast as the server sends it, carrying the publisher's stamp.
std::string message(std::uint64_t id, std::int64_t t_us, std::uint64_t seq) {
  return fmt::format(
      R"({{"type":"message","id":{},"channel":"*","ts":1,"data":{{"t":{},"seq":{}}}}})", id, t_us,
      seq);
}

struct ClientState : ::testing::Test {
  client_result result;
  progress live;
  client_state state{result, live, std::chrono::milliseconds(3000)};
};

TEST_F(ClientState, HelloSetsBaseAndSince) {
  EXPECT_FALSE(state.since());
  state.on_envelope(R"({"type":"hello","session":"u/s","resumed":false,"last_id":41})", 0);
  EXPECT_EQ(state.since(), 41u);
  EXPECT_EQ(state.ids().base(), 41u);
}

TEST_F(ClientState, LiveMessagesGiveLatencyAndFanout) {
  state.connection_started(1000);
  state.on_envelope(R"({"type":"hello","last_id":0})", 1500);
  state.on_envelope(message(1, 2000, 0), 2250);
  state.on_envelope(message(2, 3000, 1), 3100);
  EXPECT_EQ(state.since(), 2u);
  EXPECT_EQ(result.latency_us.count(), 2u);
  EXPECT_EQ(result.latency_us.max(), 250u);
  ASSERT_EQ(result.fanout_us.size(), 2u);
  EXPECT_EQ(result.fanout_us[0], 250);
  EXPECT_EQ(result.fanout_us[1], 100);
  EXPECT_EQ(live.messages, 2u);
}

TEST_F(ClientState, ReplaysAreBookedApart) {
  state.on_envelope(R"({"type":"hello","last_id":0})", 0);
  state.connection_started(5000);  // a reconnect: messages stamped before it are replays
  state.on_envelope(message(1, 4000, 0), 6000);
  state.on_envelope(message(2, 5500, 1), 6000);
  EXPECT_EQ(result.replay_latency_us.count(), 1u);
  EXPECT_EQ(result.latency_us.count(), 1u);
}

// The longest wait between two of this run's messages, across a reconnect and its replay; a
// message of another publisher does not end a gap.
TEST_F(ClientState, LongestGapSpansReconnectsAndIgnoresForeignMessages) {
  state.on_envelope(R"({"type":"hello","last_id":0})", 0);
  state.on_envelope(message(1, 1000, 0), 1100);
  state.on_envelope(message(2, 2000, 1), 2100);
  state.on_envelope(R"({"type":"message","id":3,"channel":"*","ts":1,"data":"other"})", 5000);
  state.connection_started(9000);
  state.on_envelope(R"({"type":"hello","resumed":true,"last_id":3})", 9000);
  state.on_envelope(message(4, 3000, 2), 9600);  // a replay ends the wait
  state.on_envelope(message(5, 9700, 3), 9800);
  EXPECT_EQ(result.longest_gap_us, 7500u);
}

TEST_F(ClientState, DuplicatesAndLossAcrossReconnects) {
  state.on_envelope(R"({"type":"hello","last_id":10})", 0);
  state.on_envelope(message(11, 0, 0), 0);
  state.on_envelope(message(12, 0, 1), 0);
  // The resume replays 12 again (a server bug) and skips 13.
  state.on_envelope(R"({"type":"hello","resumed":true,"last_id":14})", 0);
  state.on_envelope(message(12, 0, 1), 0);
  state.on_envelope(message(14, 0, 3), 0);
  EXPECT_EQ(state.since(), 14u);
  EXPECT_EQ(result.resumed, 1u);
  EXPECT_EQ(state.ids().duplicates(), 1u);
  const std::vector<std::uint64_t> published{11, 12, 13, 14};
  const auto n = state.ids().count(published);
  EXPECT_EQ(n.expected, 4u);
  EXPECT_EQ(n.lost, 1u);
}

TEST_F(ClientState, LateSkippedIdIsOutOfOrder) {
  state.on_envelope(R"({"type":"hello","last_id":0})", 0);
  state.on_envelope(message(2, 0, 1), 0);
  state.on_envelope(message(1, 0, 0), 0);
  EXPECT_EQ(result.errors["out_of_order"], 1u);
  EXPECT_EQ(state.ids().duplicates(), 0u);
}

TEST_F(ClientState, PacedMessageAfterAHigherIdIsNotOutOfOrder) {
  // docs/protocol.md, "Paced publish": id 1 was paced, id 2 was not and came first.
  state.on_envelope(R"({"type":"hello","last_id":0})", 0);
  state.on_envelope(message(2, 0, 1), 0);
  state.on_envelope(
      R"({"type":"message","id":1,"channel":"*","ts":1,"spread_ms":3000,"data":{"t":0,"seq":0}})",
      2'500'000);
  EXPECT_EQ(result.errors.count("out_of_order"), 0u);
  EXPECT_EQ(state.since(), 2u);  // resume stays at the highest id
  EXPECT_EQ(state.ids().count(std::vector<std::uint64_t>{1, 2}).lost, 0u);
}

TEST_F(ClientState, ArrivalsAreBookedBySecondsAfterThePublish) {
  state.connection_started(0);
  state.on_envelope(R"({"type":"hello","last_id":0})", 0);
  state.on_envelope(message(1, 1'000'000, 0), 1'400'000);  // 0.4 s after its publish
  state.on_envelope(message(2, 1'000'000, 1), 3'100'000);  // 2.1 s
  state.connection_started(5'000'000);
  state.on_envelope(message(3, 1'000'000, 2), 5'200'000);  // a replay, 4.2 s: counted as well
  EXPECT_EQ(result.arrivals.counts(), (std::vector<std::uint64_t>{1, 0, 1, 0, 1}));
}

TEST_F(ClientState, PollRepliesWithoutHello) {
  const auto r = state.on_envelope(R"({"type":"messages","messages":[)" + message(7, 0, 0) + "," +
                                       message(8, 0, 1) + R"(],"last_id":8,"gap":false})",
                                   0);
  EXPECT_EQ(r.what, reaction::kind::keep);
  EXPECT_EQ(state.ids().base(), 6u);  // the first reply marks the start of the stream
  EXPECT_EQ(state.since(), 8u);
  EXPECT_EQ(result.polls, 1u);
  const std::vector<std::uint64_t> published{5, 7, 8};
  EXPECT_EQ(state.ids().count(published).lost, 0u);
}

TEST_F(ClientState, ReconnectHonoursRetryUpToTheCap) {
  auto r = state.on_envelope(R"({"type":"reconnect","reason":"shutdown","retry_ms":800})", 0);
  EXPECT_EQ(r.what, reaction::kind::reconnect);
  EXPECT_EQ(r.delay, std::chrono::milliseconds(800));
  r = state.on_envelope(R"({"type":"reconnect","reason":"rebalance","retry_ms":600000})", 0);
  EXPECT_EQ(r.delay, std::chrono::milliseconds(3000));
  EXPECT_EQ(result.server_reconnects["shutdown"], 1u);
  EXPECT_EQ(result.server_reconnects["rebalance"], 1u);
}

TEST_F(ClientState, CloseReasons) {
  EXPECT_EQ(state.on_envelope(R"({"type":"close","reason":"idle"})", 0).what,
            reaction::kind::reconnect);
  EXPECT_EQ(state.on_envelope(R"({"type":"close","reason":"replaced"})", 0).what,
            reaction::kind::give_up);
  EXPECT_EQ(result.server_closes["idle"], 1u);
}

TEST_F(ClientState, GarbageAndErrorsAreCounted) {
  state.on_envelope("not json", 0);
  state.on_envelope(R"({"type":"error","code":"bad_request","message":"x"})", 0);
  state.on_envelope(R"({"type":"pong"})", 0);
  state.on_envelope(R"({"type":"message","channel":"*"})", 0);
  EXPECT_EQ(result.errors["bad_envelope"], 2u);
  EXPECT_EQ(result.errors["server_bad_request"], 1u);
  EXPECT_EQ(live.errors, 3u);
}

TEST_F(ClientState, ForeignMessagesCountButHaveNoLatency) {
  state.on_envelope(R"({"type":"hello","last_id":0})", 0);
  state.on_envelope(R"({"type":"message","id":1,"channel":"*","data":"promo"})", 0);
  EXPECT_EQ(result.foreign, 1u);
  EXPECT_EQ(result.latency_us.count(), 0u);
  EXPECT_EQ(state.since(), 1u);
}

// --server-kind nchan: frames are the bare published body and seq + 1 is the id.
TEST_F(ClientState, NchanBodiesAreBookedBySeq) {
  state.connection_started(1000);
  state.nchan_connected(true);  // up before publishing: every message is expected
  EXPECT_EQ(state.ids().base(), 0u);
  state.on_raw_message(R"({"t":2000,"seq":0})", 2300);
  state.on_raw_message(R"({"t":3000,"seq":2})", 3100);
  state.on_raw_message(R"({"t":3000,"seq":2})", 3200);  // duplicate
  state.on_raw_message(R"({"t":2500,"seq":1})", 3300);  // late: out of order
  EXPECT_EQ(state.ids().duplicates(), 1u);
  EXPECT_EQ(result.errors["out_of_order"], 1u);
  EXPECT_EQ(result.latency_us.count(), 3u);
  EXPECT_EQ(result.latency_us.max(), 800u);
  ASSERT_EQ(result.fanout_us.size(), 3u);
  EXPECT_EQ(result.fanout_us[0], 300);
  const std::vector<std::uint64_t> published{1, 2, 3, 4};
  const auto n = state.ids().count(published);
  EXPECT_EQ(n.expected, 4u);
  EXPECT_EQ(n.received, 3u);
  EXPECT_EQ(n.lost, 1u);
}

TEST_F(ClientState, NchanLateConnectionStartsAtFirstMessage) {
  state.nchan_connected(false);
  EXPECT_FALSE(state.ids().has_base());
  state.on_raw_message(R"({"t":1,"seq":7})", 2);
  EXPECT_EQ(state.ids().base(), 7u);
  const std::vector<std::uint64_t> published{6, 7, 8, 9};
  EXPECT_EQ(state.ids().count(published).expected, 2u);
}

TEST_F(ClientState, NchanForeignBodies) {
  state.nchan_connected(true);
  state.on_raw_message("hello", 0);
  state.on_raw_message(R"({"seq":3})", 0);
  state.on_raw_message(R"({"t":1,"seq":-1})", 0);
  EXPECT_EQ(result.foreign, 3u);
  EXPECT_EQ(result.latency_us.count(), 0u);
  EXPECT_EQ(state.since(), 0u);  // still the base: nothing was booked under an id
}

}  // namespace
}  // namespace ringcast::load
