// The message store's history and expiry through the hub on a simulated clock: resume and its
// gaps, a message's ttl and its notice, find and newest, a seeded history.
#include "hub_test_support.hpp"

namespace ringcast {
namespace {

class MessageHistoryTest : public hub_test_base {};

// ---- resume ---------------------------------------------------------------------------------

TEST_F(MessageHistoryTest, ResumeReturnsTheSessionsBacklogInIdOrder) {
  publish();                            // 1 broadcast
  publish(audience::channel, "news");   // 2
  publish(audience::channel, "sport");  // 3
  publish(audience::user, "alice");     // 4
  publish(audience::user, "bob");       // 5
  publish();                            // 6
  publish(audience::channel, "news");   // 7
  publish(audience::user, "alic");      // 8: no prefix matching of users
  publish(audience::channel, "new");    // 9: nor of channels
  publish(audience::user, "alice2");    // 10

  fake_subscriber ws(transport::ws);
  auto r = attach(params("alice", "t1", {"news"}, 1), ws);
  EXPECT_FALSE(r.resumed);  // a new session may still resume by id
  EXPECT_FALSE(r.gap);
  EXPECT_EQ(r.last_id, 10u);
  EXPECT_EQ(ids_of(r.backlog), (ids{2, 4, 6, 7}));
  EXPECT_TRUE(ws.messages.empty());  // the backlog is returned, not delivered

  fake_subscriber from_zero(transport::sse);
  r = attach(params("bob", "t1", {"sport"}, 0), from_zero);
  EXPECT_EQ(ids_of(r.backlog), (ids{1, 3, 5, 6}));
  EXPECT_FALSE(r.gap);

  fake_subscriber up_to_date(transport::poll);
  r = attach(params("carol", "t1", {"news"}, 10), up_to_date);
  EXPECT_TRUE(r.backlog.empty());
  EXPECT_FALSE(r.gap);
}

TEST_F(MessageHistoryTest, NoSinceMeansFromNow) {
  publish();
  publish();
  fake_subscriber ws(transport::ws);
  const auto r = attach(params("alice"), ws);
  EXPECT_TRUE(r.backlog.empty());
  EXPECT_FALSE(r.gap);
  EXPECT_EQ(r.last_id, 2u);
}

TEST_F(MessageHistoryTest, ResumePastTheRetainedWindowIsAGap) {
  cfg.history = 3;
  for (int i = 0; i < 5; ++i)
    publish();  // 1..5; 3, 4 and 5 are retained

  fake_subscriber a(transport::ws);
  auto r = attach(params("alice", "0", {}, 1), a);
  EXPECT_TRUE(r.gap);
  EXPECT_EQ(ids_of(r.backlog), (ids{3, 4, 5}));

  fake_subscriber b(transport::ws);
  r = attach(params("bob", "0", {}, 2), b);
  EXPECT_FALSE(r.gap);
  EXPECT_EQ(ids_of(r.backlog), (ids{3, 4, 5}));
}

TEST_F(MessageHistoryTest, ResumeFromTheFutureIsAGapWithNothing) {
  publish();
  publish();
  fake_subscriber ws(transport::ws);
  const auto r = attach(params("alice", "0", {}, 3), ws);
  EXPECT_TRUE(r.gap);
  EXPECT_TRUE(r.backlog.empty());
  EXPECT_EQ(r.last_id, 2u);
}

TEST_F(MessageHistoryTest, FloorIdIsTheStartingLastId) {
  make_hub(500);
  fake_subscriber ws(transport::ws);
  auto r = attach(params("alice", "0", {}, 500), ws);
  EXPECT_EQ(r.last_id, 500u);
  EXPECT_FALSE(r.gap);
  fake_subscriber older(transport::ws);
  r = attach(params("bob", "0", {}, 400), older);
  EXPECT_TRUE(r.gap);
}

TEST_F(MessageHistoryTest, AnExpiredMessageIsNotResumedAndLiveClientsAreTold) {
  fake_subscriber ws(transport::ws), other(transport::ws);
  attach(params("alice"), ws);
  attach(params("bob", "0", {"sport"}), other);
  const message_ptr sale =
      make_message(++last_id, 1'700'000'000'000, {audience::broadcast, ""}, "1", 1'700'000'002'000);
  EXPECT_NE(sale->json.find(R"("expires":1700000002000)"), std::string::npos);
  the_hub().publish(sale, now);
  const message_ptr news = make_message(++last_id, 1'700'000'000'000, {audience::channel, "news"},
                                        "2", 1'700'000'000'500);
  the_hub().publish(news, now);  // addressed to nobody live: no notice for it
  advance_to(epoch + 1990ms);
  EXPECT_FALSE(sale->expired);
  EXPECT_EQ(ws.ids(), ids{1});
  advance_to(epoch + 2010ms);  // never early, at most one tick late
  EXPECT_TRUE(sale->expired);
  EXPECT_TRUE(news->expired);
  ASSERT_EQ(ws.messages.size(), 2u);
  EXPECT_EQ(ws.messages[1]->json, R"({"type":"expired","id":1})");
  EXPECT_EQ(ws.messages[1]->sse_prefix, "event: expired\ndata: ");
  EXPECT_EQ(parse_object(ws.messages[1]->poll_body)["last_id"], 2);
  ASSERT_EQ(other.messages.size(), 2u);  // the broadcast's notice only
  EXPECT_EQ(stats.messages_expired, 2u);
  EXPECT_EQ(stats.expired_notices, 2u);

  // Resume and long-poll never return it; it is not a gap either.
  fake_subscriber later(transport::poll);
  const auto r = attach(params("carol", "0", {"news"}, 0), later);
  EXPECT_TRUE(r.backlog.empty());
  EXPECT_FALSE(r.gap);
  EXPECT_EQ(r.last_id, 2u);
}

// Only a session that was sent the message is told to take it down: one that came afterwards
// (without resuming) never showed it.
TEST_F(MessageHistoryTest, AnExpiredNoticeGoesOnlyToSessionsThatWereSentTheMessage) {
  fake_subscriber before(transport::ws), after(transport::sse);
  attach(params("alice"), before);
  the_hub().publish(make_message(++last_id, 1'000, {audience::broadcast, ""}, "1", 3'000), now);
  attach(params("bob"), after);  // no `since`: starts from now
  advance_to(epoch + 2010ms);
  ASSERT_EQ(before.messages.size(), 2u);
  EXPECT_EQ(before.messages[1]->json, R"({"type":"expired","id":1})");
  EXPECT_TRUE(after.messages.empty());
  EXPECT_EQ(stats.expired_notices, 1u);
}

TEST_F(MessageHistoryTest, ExpiryDuringAStalledLoopStillNotifiesOnce) {
  fake_subscriber ws(transport::ws);
  attach(params("alice"), ws);
  the_hub().publish(make_message(++last_id, 1'000, {audience::user, "alice"}, "1", 1'300), now);
  jump_to(epoch + 10s);
  ASSERT_EQ(ws.messages.size(), 2u);
  EXPECT_EQ(ws.messages[1]->json, R"({"type":"expired","id":1})");
  advance_by(1s);
  EXPECT_EQ(ws.messages.size(), 2u);
}

TEST_F(MessageHistoryTest, FindForgetsWhatLeftHistory) {
  cfg.history = 2;
  publish();
  publish();
  publish();
  EXPECT_EQ(the_hub().find(1), nullptr);
  EXPECT_NE(the_hub().find(2), nullptr);
  EXPECT_NE(the_hub().find(3), nullptr);
}

TEST_F(MessageHistoryTest, NewestIsTheTailOfHistoryNewestFirst) {
  cfg.history = 3;
  EXPECT_TRUE(the_hub().newest(5).empty());
  for (int i = 0; i < 4; ++i)
    publish();
  auto ids_of = [](const std::vector<message_ptr>& list) {
    std::vector<std::uint64_t> out;
    for (const auto& m : list)
      out.push_back(m->id);
    return out;
  };
  EXPECT_EQ(ids_of(the_hub().newest(2)), (std::vector<std::uint64_t>{4, 3}));
  EXPECT_EQ(ids_of(the_hub().newest(10)), (std::vector<std::uint64_t>{4, 3, 2}));  // 1 was evicted
}

TEST_F(MessageHistoryTest, SeededHistoryKeepsTheTtlsOfAnotherNode) {
  const std::int64_t now_ms = 1'700'000'010'000;
  const auto gone = make_message(1, now_ms - 5'000, {}, "1", now_ms - 1);
  const auto going = make_message(2, now_ms - 5'000, {}, "2", now_ms + 500);
  const auto staying = make_message(3, now_ms - 5'000, {}, "3");
  the_hub().seed_history({gone, going, staying}, now, now_ms);
  EXPECT_TRUE(gone->expired);
  fake_subscriber ws(transport::ws);
  EXPECT_EQ(ids_of(attach(params("alice", "0", {}, 0), ws).backlog), (ids{2, 3}));
  advance_by(490ms);
  EXPECT_FALSE(going->expired);
  advance_by(30ms);
  EXPECT_TRUE(going->expired);
  ASSERT_EQ(ws.messages.size(), 1u);  // the notice (the backlog is the connection's to send)
  EXPECT_EQ(ws.messages[0]->json, R"({"type":"expired","id":2})");
  fake_subscriber later(transport::ws);
  EXPECT_EQ(ids_of(attach(params("bob", "0", {}, 0), later).backlog), ids{3});
}

}  // namespace
}  // namespace ringcast
