// A field added to a record of the handover state crosses an upgrade with no other line written
// for it. This executable is a scratch build of the codec (server/upgrade/state_codec.cpp) and of
// the message's capture and restore (core/handover_messages.cpp) with fields added to the records
// through their test hooks (added_record_fields.hpp). A session is carried as the hub carries it:
// capture's copy into the state (upgrade::carry, times made relative to the capture), the bytes,
// and restore's copy back (times absolute again, an upgrade's pause later); a message goes
// through the node's own capture_messages and restore_messages. A field the codec or the copies
// missed would come back at its default; a field of a type with no encoding fails the build
// instead (tests/server/CMakeLists.txt).
#include <chrono>
#include <cstdint>

#include <gtest/gtest.h>
#include <boost/pfr/core.hpp>

#include "core/handover_messages.hpp"
#include "upgrade/record_walk.hpp"
#include "upgrade/state_codec.hpp"

namespace ringcast::upgrade {
namespace {

using steady = std::chrono::steady_clock;
enum class kind : std::uint8_t { ws, sse, poll };
using in_memory = session_record<steady::time_point, kind>;

TEST(StateAddedField, CrossesCaptureTheBytesAndRestore) {
  static_assert(boost::pfr::tuple_size_v<in_memory> ==
                    boost::pfr::tuple_size_v<session_record<rel_ns, std::uint8_t>>,
                "the record in memory and in the state have the same fields");
  const steady::time_point captured_at{std::chrono::seconds(1000)};
  const steady::time_point restored_at = captured_at + std::chrono::milliseconds(250);

  in_memory before;
  before.user_ = "alice";
  before.sid_ = "tab-1";
  before.transport_ = kind::sse;
  before.token_expires_ = captured_at + std::chrono::seconds(60);
  before.added_count_ = 0x0123'4567'89ab'cdefULL;
  before.added_at_ = captured_at - std::chrono::milliseconds(7);
  before.added_names_ = {"one", "two"};

  handover_state state;
  state.loops.resize(1);
  session_state& s = state.loops[0].sessions.emplace_back();
  carry(before, s.record, [&](steady::time_point t) { return (t - captured_at).count(); });
  const auto read = read_state(write_state(state));
  ASSERT_TRUE(read.state) << read.error;
  ASSERT_EQ(read.state->loops.at(0).sessions.size(), 1u);

  in_memory after;
  carry(read.state->loops[0].sessions[0].record, after,
        [&](rel_ns t) { return restored_at + steady::duration(t); });
  EXPECT_EQ(after.added_count_, before.added_count_);
  EXPECT_EQ(after.added_names_, before.added_names_);
  EXPECT_EQ(after.added_at_, restored_at - std::chrono::milliseconds(7));
  EXPECT_EQ(after.transport_, kind::sse);
  EXPECT_EQ(after.token_expires_, restored_at + std::chrono::seconds(60));
  // And nothing else was lost: captured again relative to the restore, it is the state it was.
  session_record<rel_ns, std::uint8_t> again;
  carry(after, again, [&](steady::time_point t) { return (t - restored_at).count(); });
  EXPECT_EQ(again, s.record);
}

TEST(StateAddedField, AMessageFieldCrossesCaptureTheBytesAndRestore) {
  auto m = std::make_shared<message>();
  m->id = 7;
  m->ts_ms = 1'700'000'000'000;
  m->to = audience::users;
  m->target = "alice,bob";
  m->spread = std::chrono::milliseconds(1500);
  m->json = R"({"type":"message","id":7})";
  m->acked.store(3);
  m->added_label = "added";
  m->added_wait = std::chrono::milliseconds(250);
  m->added_count.store(0x0123'4567'89ab'cdefULL);
  complete_message(*m);

  handover_state state;
  state.last_id = 7;
  state.loops.resize(1);
  state.messages = capture_messages({{m->id, m}});
  const auto read = read_state(write_state(state));
  ASSERT_TRUE(read.state) << read.error;
  const handover_messages restored = restore_messages(read.state->messages);
  ASSERT_EQ(restored.size(), 1u);
  const message& after = *restored.at(7);
  EXPECT_EQ(after.added_label, "added");
  EXPECT_EQ(after.added_wait, std::chrono::milliseconds(250));
  EXPECT_EQ(after.added_count.load(), 0x0123'4567'89ab'cdefULL);
  // And nothing else was lost, and what is made of the record was made again.
  EXPECT_EQ(capture_messages(restored), state.messages);
  EXPECT_EQ(after.users, (std::vector<std::string>{"alice", "bob"}));
  EXPECT_EQ(after.poll_body, m->poll_body);
}

// A message's ttl and a paced message on a loop, and a waiting promotion, carried as the hub and
// the schedule carry them (core/loop_handover.cpp, core/schedule_handover.cpp): each record whole
// through to_state and from_state, its message through capture_messages and restore_messages.
TEST(StateAddedField, ExpiryPacedAndPromotionFieldsCrossCaptureTheBytesAndRestore) {
  using time_point = timing_wheel::time_point;
  using namespace std::chrono_literals;
  const time_point captured_at{std::chrono::seconds(1000)};
  const time_point restored_at = captured_at + 250ms;
  const message_ptr m = make_message(7, 1'700'000'000'000, {}, "1", 0, 1500ms);
  const message_ptr other = make_message(9, 1'700'000'000'001, {}, "2");

  pacing::paced_message::record paced;
  paced.msg = m;
  paced.start = captured_at - 5ms;
  paced.walked = 0x0123'4567'89ab'cdefULL;
  paced.added_turns = 42;
  paced.added_since = captured_at - 3ms;
  paced.added_mark = pacing::whole_ring;
  expiry_record<message_ptr, time_point> expiry;
  expiry.msg = m;
  expiry.due = captured_at + 2s;
  expiry.added_about = other;
  expiry.added_ids = {4, 5};
  promotion_record promotion;
  promotion.at_ms = 1'700'000'600'000;
  promotion.request_json = R"({"data":1})";
  promotion.added_note = "note";

  handover_messages kept;
  const to_state to{captured_at, kept};
  handover_state state;
  state.last_id = 9;
  loop_state& loop = state.loops.emplace_back();
  carry(paced, loop.paced.emplace_back(), to);
  carry(expiry, loop.expiring.emplace_back(), to);
  state.messages = capture_messages(kept);
  state.schedule.generations = {0};
  promotion_state& waiting = state.schedule.waiting.emplace_back();
  carry(promotion, waiting.record);
  const auto read = read_state(write_state(state));
  ASSERT_TRUE(read.state) << read.error;
  const auto& l = read.state->loops.at(0);
  ASSERT_EQ(l.paced.size(), 1u);
  ASSERT_EQ(l.expiring.size(), 1u);
  ASSERT_EQ(read.state->schedule.waiting.size(), 1u);

  const handover_messages messages = restore_messages(read.state->messages);
  const from_state from{restored_at, messages};
  pacing::paced_message::record paced_after;
  carry(l.paced[0], paced_after, from);
  EXPECT_EQ(paced_after.added_turns, 42u);
  EXPECT_EQ(paced_after.added_since, restored_at - 3ms);
  EXPECT_TRUE(paced_after.added_mark == pacing::whole_ring);
  EXPECT_TRUE(paced_after.walked == paced.walked);
  EXPECT_EQ(paced_after.start, restored_at - 5ms);
  EXPECT_EQ(paced_after.msg->id, 7u);
  expiry_record<message_ptr, time_point> expiry_after;
  carry(l.expiring[0], expiry_after, from);
  EXPECT_EQ(expiry_after.added_about->id, 9u);
  EXPECT_EQ(expiry_after.added_ids, expiry.added_ids);
  EXPECT_EQ(expiry_after.due, restored_at + 2s);
  EXPECT_EQ(expiry_after.msg->id, 7u);
  promotion_record promotion_after;
  carry(read.state->schedule.waiting[0].record, promotion_after);
  EXPECT_EQ(promotion_after, promotion);
}

}  // namespace
}  // namespace ringcast::upgrade
