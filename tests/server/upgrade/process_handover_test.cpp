// The process's section of the upgrade state (server/upgrade/process_handover): every field
// round-trips, and anything else is refused with a reason, never read past its end.
#include "upgrade/process_handover.hpp"

#include <gtest/gtest.h>

#include "protocol/handover_version.hpp"

namespace ringcast {
namespace {

process_handover sample() {
  process_handover s;
  s.last_id = 1'700'000'000'000'123;
  s.upgrades = 3;
  s.reconnected = 17;
  s.paused_at_ns = 987'654'321;
  s.generated_admin_token = "0123abcd";
  s.listeners = {{7, false}, {9, true}};
  moved_stream ws;
  ws.fd = 12;
  ws.v6 = true;
  ws.kind = moved_stream::kind_t::ws;
  ws.user = "alice";
  ws.sid = "t1";
  ws.channels = {"news", "sport"};
  ws.allowed_channels = std::vector<std::string>{"news", "sport", "weather"};
  ws.token_expires_ms = 1'800'000'000'000;
  ws.highest_id = 41;
  ws.deflate = true;
  ws.compress_min = 100;
  ws.partial = std::string("llo", 3);
  ws.queued = {{0, {}, false},
               {queued_frame::own, std::string("\x81\x02hb", 4), false},
               {1, {}, false},
               {0, {}, true}};
  ws.unread = std::string("\x81\x85", 2);
  moved_stream sse;
  sse.fd = 13;
  sse.kind = moved_stream::kind_t::sse;
  sse.user = "bob";
  sse.sid = "0";
  sse.queued = {{1, {}, false}};
  s.streams = {ws, sse};
  // One message the node's state carries, one framed here (an `expired` notice, say).
  s.messages = {{.id = 40, .in_node_state = true, .json = {}, .sse_prefix = {}},
                {.id = 41,
                 .in_node_state = false,
                 .json = R"({"type":"expired","id":41})",
                 .sse_prefix = "event: expired\ndata: "}};
  moved_http idle;
  idle.fd = 14;
  idle.unread = "GET /healthz HTTP/1.1\r\nHost: a\r\n";
  moved_http poll;
  poll.fd = 15;
  poll.v6 = true;
  poll.held_poll = true;
  poll.unread = "GET /poll?user=carol&since=41 HTTP/1.1\r\nHost: a\r\n\r\n";
  s.http = {idle, poll};
  s.node_id = "n-7f3a";
  s.node_state = std::string("RCSTATE\0...", 11);
  return s;
}

TEST(ProcessHandover, EveryFieldRoundTrips) {
  const process_handover in = sample();
  const auto out = decode_handover(encode_handover(in));
  ASSERT_TRUE(out) << out.error;
  const process_handover& s = *out.value;
  EXPECT_EQ(s.last_id, in.last_id);
  EXPECT_EQ(s.upgrades, in.upgrades);
  EXPECT_EQ(s.reconnected, in.reconnected);
  EXPECT_EQ(s.paused_at_ns, in.paused_at_ns);
  EXPECT_EQ(s.generated_admin_token, in.generated_admin_token);
  ASSERT_EQ(s.listeners.size(), 2u);
  EXPECT_EQ(s.listeners[1].fd, 9);
  EXPECT_TRUE(s.listeners[1].v6);
  EXPECT_FALSE(s.listeners[0].v6);
  ASSERT_EQ(s.streams.size(), 2u);
  const moved_stream& a = s.streams[0];
  const moved_stream& b = in.streams[0];
  EXPECT_EQ(a.fd, b.fd);
  EXPECT_EQ(a.v6, b.v6);
  EXPECT_EQ(a.kind, b.kind);
  EXPECT_EQ(a.user, b.user);
  EXPECT_EQ(a.sid, b.sid);
  EXPECT_EQ(a.channels, b.channels);
  EXPECT_EQ(a.allowed_channels, b.allowed_channels);
  EXPECT_EQ(a.token_expires_ms, b.token_expires_ms);
  EXPECT_EQ(a.highest_id, b.highest_id);
  EXPECT_EQ(a.deflate, b.deflate);
  EXPECT_EQ(a.compress_min, b.compress_min);
  EXPECT_EQ(a.partial, b.partial);
  ASSERT_EQ(a.queued.size(), b.queued.size());
  for (std::size_t i = 0; i < a.queued.size(); ++i) {
    EXPECT_EQ(a.queued[i].message, b.queued[i].message);
    EXPECT_EQ(a.queued[i].text, b.queued[i].text);
    EXPECT_EQ(a.queued[i].unnumbered, b.queued[i].unnumbered);
  }
  ASSERT_EQ(s.messages.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(s.messages[i].id, in.messages[i].id);
    EXPECT_EQ(s.messages[i].in_node_state, in.messages[i].in_node_state);
    EXPECT_EQ(s.messages[i].json, in.messages[i].json);
    EXPECT_EQ(s.messages[i].sse_prefix, in.messages[i].sse_prefix);
  }
  EXPECT_EQ(a.unread, b.unread);
  EXPECT_EQ(s.streams[1].kind, moved_stream::kind_t::sse);
  EXPECT_EQ(s.node_state, in.node_state);
  EXPECT_EQ(s.node_id, in.node_id);
  EXPECT_FALSE(s.streams[1].allowed_channels);
  EXPECT_FALSE(s.streams[1].token_expires_ms);
  ASSERT_EQ(s.http.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(s.http[i].fd, in.http[i].fd);
    EXPECT_EQ(s.http[i].v6, in.http[i].v6);
    EXPECT_EQ(s.http[i].held_poll, in.http[i].held_poll);
    EXPECT_EQ(s.http[i].unread, in.http[i].unread);
  }
}

TEST(ProcessHandover, RefusesAnotherMagicOrFormat) {
  std::string bytes = encode_handover(sample());
  std::string other = bytes;
  other[0] = 'X';
  EXPECT_FALSE(decode_handover(other));
  other = bytes;
  other[4] = static_cast<char>(handover_format + 1);
  const auto r = decode_handover(other);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error.find("state format"), std::string::npos) << r.error;
}

TEST(ProcessHandover, RefusesAChangedByte) {
  const std::string bytes = encode_handover(sample());
  for (std::size_t i = 24; i < bytes.size(); ++i) {
    std::string changed = bytes;
    changed[i] = static_cast<char>(changed[i] ^ 0x5a);
    const auto r = decode_handover(changed);
    EXPECT_FALSE(r) << "byte " << i;
  }
}

TEST(ProcessHandover, RefusesEveryTruncation) {
  const std::string bytes = encode_handover(sample());
  for (std::size_t n = 0; n < bytes.size(); ++n)
    EXPECT_FALSE(decode_handover(bytes.substr(0, n))) << n << " bytes";
}

// A payload with a valid header and checksum but absurd content: each refused with a reason.
std::string with_header(const std::string& payload) {
  process_handover empty;
  std::string bytes = encode_handover(empty).substr(0, 8);  // magic and format
  auto put = [&](std::uint64_t v) {
    for (int i = 0; i < 8; ++i)
      bytes.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : payload) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  put(payload.size());
  put(h);
  return bytes + payload;
}

TEST(ProcessHandover, RefusesAbsurdCountsAndValues) {
  std::string base(8 + 8 + 8 + 8 + 8, '\0');  // last id, upgrades, reconnected, pause, no token
  // Four billion listeners in a handful of bytes.
  auto r = decode_handover(with_header(base + std::string("\xff\xff\xff\xff", 4)));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error.find("listeners"), std::string::npos) << r.error;
  // A token longer than the state.
  std::string long_token(8 + 8 + 8 + 8, '\0');
  long_token += std::string("\xff\xff\xff\xff\xff\xff\xff\x7f", 8);
  r = decode_handover(with_header(long_token));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error.find("admin token"), std::string::npos) << r.error;
  // A listener whose family flag is neither 0 nor 1.
  std::string listener =
      base + std::string("\x01\0\0\0", 4) + std::string("\x05\0\0\0", 4) + "\x07";
  r = decode_handover(with_header(listener + std::string(4, '\0')));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error.find("listener family"), std::string::npos) << r.error;
  // Four billion HTTP connections after no listeners and no streams.
  r = decode_handover(with_header(base + std::string(8, '\0') + "\xff\xff\xff\xff"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error.find("http connections"), std::string::npos) << r.error;
  // Bytes after the last section (no listeners, streams, HTTP connections or messages, no node id
  // or state).
  r = decode_handover(with_header(base + std::string(16, '\0') + std::string(16, '\0') + "x"));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error.find("after the node state"), std::string::npos) << r.error;
}

// A queued frame names a message of the table, and every message of the table is named: the new
// process never looks past the table, and the state carries no message for nothing.
TEST(ProcessHandover, RefusesReferencesThatDoNotHold) {
  process_handover s = sample();
  s.streams[1].queued = {{2, {}, false}};
  auto r = decode_handover(encode_handover(s));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error.find("names message 2 of 2"), std::string::npos) << r.error;
  s = sample();
  s.streams[1].queued.clear();
  s.streams[0].queued = {{0, {}, false}};
  r = decode_handover(encode_handover(s));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error.find("no queued frame names"), std::string::npos) << r.error;
  s = sample();
  s.messages[1].json.clear();
  r = decode_handover(encode_handover(s));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error.find("message envelope"), std::string::npos) << r.error;
}

}  // namespace
}  // namespace ringcast
