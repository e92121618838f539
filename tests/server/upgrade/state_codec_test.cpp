// The handover state's codec (server/upgrade/state_codec): every field survives the round trip,
// and anything the reader does not understand is refused with a message, never a crash.
#include <gtest/gtest.h>

#include <cstring>

#include <zlib.h>

#include "upgrade/state_bytes.hpp"
#include "upgrade/state_codec.hpp"

namespace ringcast::upgrade {
namespace {

// Every field set, to a value unlike its default and unlike the others, so that a field the codec
// forgot or swapped with a neighbour fails the comparison.
handover_state full_state() {
  handover_state s;
  s.last_id = 900;
  s.published = 77;
  s.sticky_quota = {{5, 0}, {8, 1'700'000'123'456}};
  for (std::uint64_t id : {5, 8, 13}) {
    message_state m;
    m.id = id;
    m.ts_ms = 1'700'000'000'000 + static_cast<std::int64_t>(id);
    m.to = static_cast<std::uint8_t>(id % 4);
    m.target = "target-" + std::to_string(id);
    m.expires_ms = id == 8 ? 1'700'000'123'456 : 0;
    m.spread = id == 13 ? 60'000 : 0;
    m.sticky = id != 13;
    m.json = R"({"type":"message","id":)" + std::to_string(id) + "}";
    m.recipients = id * 3;
    m.delivered = id * 2;
    m.acked = id;
    m.expired = id == 5;
    if (id == 8) m.pusher_event = R"(App\Events\Sale)";
    if (id == 13) m.pusher_except_socket = "123.456";
    if (id == 13) m.pusher_user_id = "u\"1";
    s.messages.push_back(m);
  }
  loop_state l;
  l.history_floor = 4;
  l.history = {5, 8, 13};
  l.sticky = {5, 8};
  l.expiring = {{8, 123'000'000}};
  l.paced_walked_to = -3'000'000;
  l.paced = {{13, -2'000'000'000, 0xfedc'ba98'7654'3210ULL, 0}};
  session_state a;
  a.record.user_ = "alice";
  a.record.sid_ = "tab-1";
  a.record.channels_ = {"news", "deals"};
  a.record.joined_after_ = {4, 8};
  a.record.allowed_channels_ = std::vector<std::string>{"news", "deals", "vip"};
  a.record.token_expires_ = 3'600'000'000'000;
  a.live = true;
  a.record.transport_ = 1;
  a.record.online_ = true;
  a.record.acked_id_ = 8;
  a.record.paced_acked_id_ = 13;
  a.record.sent_up_to_ = 12;
  a.record.ack_floor_ = 3;
  a.record.start_id_ = 2;
  a.record.attached_at_ = -10;
  a.record.last_activity_ = -11;
  a.record.last_sent_ = -12;
  a.record.detached_at_ = -13;
  a.record.paced_until_ = -14;
  a.timer_due = 15;
  session_state b;  // waiting out its TTL, without token expiry or grant
  b.record.user_ = "bob";
  b.record.token_expires_ = never;
  b.record.sid_ = "0";
  b.record.transport_ = 2;
  b.record.detached_at_ = -5'000'000'000;
  b.timer_due = 25'000'000'000;
  l.sessions = {a, b};
  loop_state settled;
  settled.history_floor = 12;
  settled.history = {13};
  settled.paced = {{13, -90'000'000'000, 0, 1}};  // walked the whole ring
  s.loops = {l, settled};
  s.schedule.generations = {3, 0, 7};
  s.schedule.waiting = {{0, 600'000'000'000, {1'700'000'600'000, R"({"data":1})"}},
                        {2, 900'000'000'000, {1'700'000'900'000, R"({"data":2})"}}};
  return s;
}

// The bytes of `state` with its body changed by `edit`, the checksum made right again: so that a
// test reaches the check after it.
std::string with_body_edit(const handover_state& state, auto edit) {
  std::string bytes = write_state(state);
  std::string body = bytes.substr(state_header_bytes);
  edit(body);
  byte_writer head;
  head.bytes() += state_magic;
  head.put(state_format);
  head.put(static_cast<std::uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()))));
  head.put(static_cast<std::uint64_t>(body.size()));
  return head.bytes() + body;
}

std::string refusal(std::string_view bytes) {
  const auto r = read_state(bytes);
  EXPECT_FALSE(r.state);
  return r.error;
}

TEST(StateCodec, EveryFieldSurvivesTheRoundTrip) {
  const handover_state s = full_state();
  const auto r = read_state(write_state(s));
  ASSERT_TRUE(r.state) << r.error;
  EXPECT_EQ(*r.state, s);
  // And the comparison does look at fields: one changed is seen.
  handover_state other = s;
  other.loops[0].sessions[0].timer_due += 1;
  EXPECT_NE(*r.state, other);
}

TEST(StateCodec, TheSmallestStateRoundTrips) {
  handover_state s;
  s.loops.resize(1);
  const auto r = read_state(write_state(s));
  ASSERT_TRUE(r.state) << r.error;
  EXPECT_EQ(*r.state, s);
}

TEST(StateCodec, BeginsWithMagicAndFormat) {
  const std::string bytes = write_state(full_state());
  ASSERT_GT(bytes.size(), state_header_bytes);
  EXPECT_EQ(bytes.substr(0, 8), state_magic);
  std::uint32_t format = 0;
  std::memcpy(&format, bytes.data() + 8, 4);  // little-endian, as the machines we run on
  EXPECT_EQ(format, state_format);
}

TEST(StateCodec, RefusesAnotherMagicOrFormat) {
  std::string bytes = write_state(full_state());
  std::string wrong_magic = bytes;
  wrong_magic[0] = 'X';
  EXPECT_EQ(refusal(wrong_magic), "not a ringcast state (no magic)");
  std::string next_format = bytes;
  next_format[8] = static_cast<char>(state_format + 1);
  EXPECT_EQ(refusal(next_format), "state format 5, this binary reads 4");
  // The format before this one (its promotions' fields in another order) is refused too.
  std::string last_format = bytes;
  last_format[8] = static_cast<char>(state_format - 1);
  EXPECT_EQ(refusal(last_format), "state format 3, this binary reads 4");
  EXPECT_EQ(refusal(""), "not a ringcast state (no magic)");
}

TEST(StateCodec, RefusesEveryFlippedBitOfTheBody) {
  const std::string bytes = write_state(full_state());
  for (std::size_t i = state_header_bytes; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    EXPECT_EQ(refusal(bad), "the state's checksum does not match") << "byte " << i;
  }
}

TEST(StateCodec, RefusesEveryTruncationAndBytesLeftOver) {
  const std::string bytes = write_state(full_state());
  for (std::size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(read_state(std::string_view(bytes).substr(0, n)).state) << n << " bytes";
  EXPECT_FALSE(read_state(bytes + '\0').state);
}

TEST(StateCodec, RefusesACountLargerThanTheStateCouldHold) {
  // The node section's sticky quota count (after tag 4, length 8, last_id 8, published 8).
  const std::string bad = with_body_edit(
      full_state(), [](std::string& body) { std::memset(body.data() + 4 + 8 + 16, 0xff, 4); });
  EXPECT_EQ(refusal(bad), "a count of sticky quota entries larger than the state could hold");
}

TEST(StateCodec, RefusesValuesOutOfRange) {
  auto refused = [](auto change) {
    handover_state s = full_state();
    change(s);
    return refusal(write_state(s));
  };
  EXPECT_EQ(refused([](auto& s) { s.messages[1].to = 4; }), "a message with an unknown audience");
  EXPECT_EQ(refused([](auto& s) { s.loops[0].sessions[0].record.transport_ = 3; }),
            "a session with an unknown transport");
  EXPECT_EQ(refused([](auto& s) { s.loops[0].sessions[1].record.sid_ = "a/b"; }),
            "a session that is not (user, sid)");
  EXPECT_EQ(refused([](auto& s) { s.loops[0].sessions[0].record.joined_after_.pop_back(); }),
            "a session's channels and joins disagree");
  EXPECT_EQ(refused([](auto& s) { s.loops[0].sessions[1] = s.loops[0].sessions[0]; }),
            "a session twice in a loop");
  EXPECT_EQ(refused([](auto& s) {
              s.loops[0].history = {5, 9};
            }),
            "a loop's history is not messages of the state in id order above its floor");
  EXPECT_EQ(refused([](auto& s) {
              s.loops[0].history = {8, 5};
            }),
            "a loop's history is not messages of the state in id order above its floor");
  EXPECT_EQ(refused([](auto& s) { s.loops[0].paced[0].walked.hi = 1; }),
            "a paced message walked past the whole ring");
  EXPECT_EQ(refused([](auto& s) { s.messages[2].id = 901; }),
            "a message id the sequencer never issued");
  EXPECT_EQ(refused([](auto& s) { s.schedule.waiting[1].slot = 3; }),
            "a scheduled promotion in a slot never handed out");
  EXPECT_EQ(refused([](auto& s) { s.loops.clear(); }), "a state without any loop");
  // A flag that is neither 0 nor 1: the first message's `sticky`, after the node section, the
  // messages section's tag, length and count, and the message's id, ts, audience, target
  // ("target-5") and two times.
  const std::string bad_flag = with_body_edit(full_state(), [](std::string& body) {
    const std::size_t messages = (4 + 8) + (8 + 8 + 4 + 2 * 16);
    const std::size_t sticky = messages + (4 + 8) + 4 + 8 + 8 + 1 + (4 + 8) + 8 + 8;
    ASSERT_EQ(body[sticky], 1);
    body[sticky] = 2;
  });
  EXPECT_EQ(refusal(bad_flag), "a flag that is neither 0 nor 1");
}

TEST(StateCodec, RefusesSectionsOutOfOrder) {
  const std::string bad = with_body_edit(full_state(), [](std::string& body) { body[0] = 2; });
  EXPECT_EQ(refusal(bad), "expected the node section, found tag 2");
}

}  // namespace
}  // namespace ringcast::upgrade
