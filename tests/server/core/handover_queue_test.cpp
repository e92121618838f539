// A moved stream's queue in an upgrade (core/handover_messages: gather_queued_messages,
// restore_queued_messages, queue_of): each queued message is in the state once however many
// streams of however many loops hold it, and the new process shares one object among them.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/handover_messages.hpp"

namespace ringcast {
namespace {

message_ptr published(std::uint64_t id, std::size_t size) {
  return make_message(id, 1'700'000'000'000, {}, fmt::format(R"("{}")", std::string(size, 'x')));
}

TEST(HandoverQueue, EachMessageOnceAcrossStreamsAndLoopsTheNodesOnlyById) {
  const message_ptr retained = published(7, 100'000), gone = published(8, 50'000);
  const message_ptr notice = make_expired_notice(7, 8);  // the same id as `retained`
  std::vector<queued_messages> loops(2);
  std::vector<std::vector<moved_stream>> streams(2);
  for (std::size_t loop = 0; loop < 2; ++loop) {
    for (int i = 0; i < 10; ++i) {
      moved_stream s;
      s.queued.push_back({loops[loop].add(retained), {}, false});
      s.queued.push_back({queued_frame::own, "hb", false});
      s.queued.push_back({loops[loop].add(gone), {}, false});
      s.queued.push_back({loops[loop].add(notice), {}, false});
      s.queued.push_back({loops[loop].add(gone), {}, true});  // SSE: a paced message come late
      streams[loop].push_back(std::move(s));
    }
  }
  const handover_messages node{{7, retained}};
  process_handover out;
  gather_queued_messages(loops, streams, node, out);
  ASSERT_EQ(out.messages.size(), 3u);
  EXPECT_TRUE(out.messages[0].in_node_state);
  EXPECT_TRUE(out.messages[0].json.empty());
  EXPECT_EQ(out.messages[1].json, gone->json);
  EXPECT_EQ(out.messages[2].id, 7u);
  EXPECT_EQ(out.messages[2].json, notice->json);
  EXPECT_EQ(out.messages[2].sse_prefix, notice->sse_prefix);
  // The state holds the queued bytes once, not 20 times.
  const auto bytes = encode_handover(out).size();
  EXPECT_LT(bytes, gone->json.size() + 4'000) << bytes;

  // The new process: the node's object, and one object per message for every stream.
  const handover_messages restored{{7, published(7, 100'000)}};
  const auto table = restore_queued_messages(out.messages, restored);
  ASSERT_EQ(table.size(), 3u);
  EXPECT_EQ(table[0], restored.at(7));
  std::vector<std::vector<outbound>> queues;
  for (auto& loop : streams)
    for (auto& s : loop)
      queues.push_back(*queue_of(s, table));
  for (const auto& q : queues) {
    ASSERT_EQ(q.size(), 5u);
    EXPECT_EQ(q[4].msg, q[2].msg);
    EXPECT_TRUE(q[4].unnumbered);
    EXPECT_FALSE(q[2].unnumbered);
    EXPECT_EQ(q[0].msg, table[0]);
    EXPECT_EQ(q[1].text, "hb");
    EXPECT_EQ(q[2].msg, queues[0][2].msg);  // one object, shared
    EXPECT_EQ(q[2].msg->json, gone->json);
    EXPECT_EQ(q[2].msg->ws_frame, gone->ws_frame);
    EXPECT_EQ(q[3].msg->sse_prefix, notice->sse_prefix);
  }
}

TEST(HandoverQueue, APartlyWrittenFrameGoesFirstAndAMissingMessageRefusesTheQueue) {
  moved_stream s;
  s.partial = "rest of a frame";
  s.queued = {{0, {}, false}};
  const std::vector<message_ptr> table{published(3, 10)};
  const auto q = queue_of(s, table);
  ASSERT_TRUE(q);
  ASSERT_EQ(q->size(), 2u);
  EXPECT_EQ((*q)[0].text, "rest of a frame");
  EXPECT_EQ((*q)[1].msg, table[0]);
  moved_stream t;
  t.queued = {{0, {}, false}};
  // The node's state was not restored: the message it carried is missing.
  const std::vector<message_ptr> missing{nullptr};
  EXPECT_FALSE(queue_of(t, missing));
}

}  // namespace
}  // namespace ringcast
