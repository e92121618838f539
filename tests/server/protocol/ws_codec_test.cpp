// The RFC 6455 codec: server frame encoding, and the client frame reader fed whole and in chunks
// down to one byte, against each rule of RFC 6455 (and Beast's reading of it, where they differ).
#include "protocol/ws_codec.hpp"

#include <atomic>
#include <cstdlib>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "protocol/ws_deflate.hpp"

// Counts live heap blocks, to show what an idle reader holds.
namespace {
std::atomic<long> live_blocks{0};
}  // namespace

void* operator new(std::size_t size) {
  void* p = std::malloc(size == 0 ? 1 : size);
  if (!p) throw std::bad_alloc();
  ++live_blocks;
  return p;
}
void operator delete(void* p) noexcept {
  if (!p) return;
  --live_blocks;
  std::free(p);
}
void operator delete(void* p, std::size_t) noexcept {
  operator delete(p);
}

namespace ringcast::ws {
namespace {

using namespace std::string_literals;

constexpr std::uint8_t fin = 0x80;
constexpr std::uint8_t op_cont = 0x0, op_text = 0x1, op_binary = 0x2, op_close = 0x8, op_ping = 0x9,
                       op_pong = 0xa;
constexpr std::uint32_t limit = 4096;
constexpr std::uint32_t frames = 32;  // a message's frames at most

// A client frame header: `length` in the given form (0: the shortest), masked with `key`.
std::string header(std::uint8_t first, std::uint64_t length, bool masked = true, int form = 0,
                   std::string_view key = "\x37\xfa\x21\x3d") {
  if (form == 0) form = length < 126 ? 1 : length <= 0xffff ? 2 : 8;
  std::string h(1, static_cast<char>(first));
  const std::uint8_t mask_bit = masked ? 0x80 : 0;
  h += static_cast<char>(mask_bit | (form == 1 ? length : form == 2 ? 126 : 127));
  for (int i = form == 1 ? 0 : form; i > 0; --i)
    h += static_cast<char>(length >> (8 * (i - 1)));
  if (masked) h += key;
  return h;
}

std::string frame(std::uint8_t first, std::string_view payload, bool masked = true, int form = 0) {
  const std::string key = "\x37\xfa\x21\x3d";
  std::string f = header(first, payload.size(), masked, form, key);
  for (std::size_t i = 0; i < payload.size(); ++i)
    f += masked ? static_cast<char>(payload[i] ^ key[i % 4]) : payload[i];
  return f;
}

std::string close_payload(std::uint16_t code, std::string_view reason = {}) {
  return std::string{static_cast<char>(code >> 8), static_cast<char>(code & 0xff)} +
         std::string(reason);
}

struct seen {
  event_type type;
  std::string bytes;  // message, control payload or close reason
  std::uint16_t code = 0;
  std::optional<error> why = {};
  bool operator==(const seen&) const = default;
};

void PrintTo(const seen& s, std::ostream* os) {
  *os << "{type " << static_cast<int>(s.type) << ", \"" << s.bytes << "\", code " << s.code;
  if (s.why) *os << ", " << describe(*s.why);
  *os << "}";
}

// Every event of `wire` fed in chunks of `chunk` bytes, up to a close or a failure; a trailing
// need_more event says the reader was waiting for more at the end.
std::vector<seen> read_all(std::string_view wire, std::size_t chunk, std::uint32_t max = limit) {
  reader r(max, frames);
  std::vector<seen> events;
  for (std::size_t at = 0; at < wire.size(); at += chunk) {
    std::string_view in = wire.substr(at, chunk);
    for (;;) {
      event e = r.next(in);
      if (e.type == event_type::need_more) break;
      if (e.type == event_type::fragment) continue;  // counted in EveryFrameIsAnEvent
      const bool control = e.type != event_type::text && e.type != event_type::binary;
      seen s{e.type, control ? std::string(e.payload) : std::move(e.message), e.code, {}};
      if (e.type == event_type::failed) s.why = e.why;
      events.push_back(s);
      if (e.type == event_type::failed || e.type == event_type::close) return events;
    }
    EXPECT_TRUE(in.empty());
  }
  events.push_back({event_type::need_more, ""});
  return events;
}

// The same events whatever the chunking: whole, one byte at a time, and sizes in between.
std::vector<seen> read_chunked(std::string_view wire, std::uint32_t max = limit) {
  const auto whole = read_all(wire, wire.size() + 1, max);
  for (std::size_t chunk : {1, 2, 3, 5, 7, 13, 64})
    EXPECT_EQ(read_all(wire, chunk, max), whole) << "chunks of " << chunk;
  return whole;
}

seen text(std::string s) {
  return {event_type::text, std::move(s)};
}
seen binary(std::string s) {
  return {event_type::binary, std::move(s)};
}
seen failure(error e) {
  return {event_type::failed, "", close_code_for(e), e};
}
const seen waiting{event_type::need_more, ""};

// ---- server frames ----

TEST(WsFrameHeader, UsesTheShortestLengthForm) {
  EXPECT_EQ(text_frame_header(0).view(), "\x81\x00"s);
  EXPECT_EQ(text_frame_header(125).view(), "\x81\x7d"s);
  EXPECT_EQ(text_frame_header(126).view(), "\x81\x7e\x00\x7e"s);
  EXPECT_EQ(text_frame_header(65535).view(), "\x81\x7e\xff\xff"s);
  EXPECT_EQ(text_frame_header(65536).view(), "\x81\x7f\x00\x00\x00\x00\x00\x01\x00\x00"s);
  EXPECT_EQ(text_frame_header(0x0102030405060708).view(),
            "\x81\x7f\x01\x02\x03\x04\x05\x06\x07\x08"s);
}

TEST(WsControlFrames, AreWholeUnmaskedFrames) {
  EXPECT_EQ(ping_frame(), "\x89\x00"s);
  EXPECT_EQ(ping_frame("hb"), "\x89\x02hb"s);
  EXPECT_EQ(pong_frame("abc"),
            "\x8a\x03"
            "abc"s);
  EXPECT_EQ(pong_frame(std::string(200, 'p')), "\x8a\x7d"s + std::string(125, 'p'));
  EXPECT_EQ(close_frame(1000), "\x88\x02\x03\xe8"s);
  EXPECT_EQ(close_frame(1001, "bye"),
            "\x88\x05\x03\xe9"
            "bye"s);
}

TEST(WsControlFrames, ALongCloseReasonIsCutBetweenCharacters) {
  // 122 ASCII bytes, then a 2-byte character that would end at byte 124 of 123.
  const std::string reason = std::string(122, 'r') + "\xc3\xa9" + "tail";
  const std::string f = close_frame(1008, reason);
  EXPECT_EQ(f, "\x88\x7c\x03\xf0"s + std::string(122, 'r'));
  // And the reader takes our own frames (masked as a client would) back.
  EXPECT_EQ(read_chunked(frame(fin | op_close, close_payload(1008, std::string(122, 'r')))),
            (std::vector<seen>{{event_type::close, std::string(122, 'r'), 1008}}));
}

// ---- the reader ----

TEST(WsReader, ReadsMaskedTextAndBinaryMessages) {
  const std::string wire = frame(fin | op_text, "hello") + frame(fin | op_binary, "\x00\xff"s) +
                           frame(fin | op_text, "");
  EXPECT_EQ(read_chunked(wire),
            (std::vector<seen>{text("hello"), binary("\x00\xff"s), text(""), waiting}));
}

TEST(WsReader, WaitsForTheRestOfAFrame) {
  const std::string wire = frame(fin | op_text, "hello");
  for (std::size_t cut = 0; cut < wire.size(); ++cut)
    EXPECT_EQ(read_chunked(wire.substr(0, cut)), std::vector<seen>{waiting}) << cut;
}

TEST(WsReader, RefusesUnmaskedFrames) {
  EXPECT_EQ(read_chunked(frame(fin | op_text, "hi", false)),
            std::vector<seen>{failure(error::unmasked_frame)});
  EXPECT_EQ(read_chunked(frame(fin | op_ping, "", false)),
            std::vector<seen>{failure(error::unmasked_frame)});
  EXPECT_EQ(close_code_for(error::unmasked_frame), 1002);
}

TEST(WsReader, JoinsFragmentsWithControlFramesBetweenThem) {
  const std::string wire = frame(op_text, "Hel") + frame(fin | op_ping, "p1") + frame(op_cont, "") +
                           frame(fin | op_pong, "") + frame(fin | op_cont, "lo") +
                           frame(fin | op_ping, "p2");
  EXPECT_EQ(read_chunked(wire), (std::vector<seen>{{event_type::ping, "p1"},
                                                   {event_type::pong, ""},
                                                   text("Hello"),
                                                   {event_type::ping, "p2"},
                                                   waiting}));
}

// Each frame is an event, so that a caller can charge it (--client-message-rate): the frames
// that do not end a message too, empty continuations included.
TEST(WsReader, EveryFrameIsAnEvent) {
  reader r(limit, frames);
  const std::string wire = frame(op_text, "a") + frame(op_cont, "") + frame(fin | op_ping, "") +
                           frame(op_cont, "") + frame(fin | op_cont, "b");
  std::string_view in = wire;
  std::vector<event_type> types;
  for (event e = r.next(in); e.type != event_type::need_more; e = r.next(in))
    types.push_back(e.type);
  EXPECT_EQ(types, (std::vector{event_type::fragment, event_type::fragment, event_type::ping,
                                event_type::fragment, event_type::text}));
}

// Empty continuations never make a message bigger: a message's frames have a bound of their own,
// refused with 1009 from the header of the frame over it. Control frames in between and the
// frames of earlier messages do not count.
TEST(WsReader, RefusesAMessageInTooManyFrames) {
  std::string at_limit = frame(fin | op_text, "one");
  std::vector<seen> expected{text("one")};
  for (std::uint32_t i = 0; i + 1 < frames; ++i) {
    at_limit += frame(i == 0 ? op_text : op_cont, "") + frame(fin | op_pong, "");
    expected.push_back({event_type::pong, ""});
  }
  at_limit += frame(fin | op_cont, "x");
  expected.push_back(text("x"));
  expected.push_back(waiting);
  EXPECT_EQ(read_chunked(at_limit), expected);

  std::string over = frame(op_binary, "");
  for (std::uint32_t i = 1; i < frames; ++i)
    over += frame(op_cont, "");
  over += header(op_cont, 0);
  EXPECT_EQ(read_chunked(over), std::vector<seen>{failure(error::too_many_frames)});
  EXPECT_EQ(close_code_for(error::too_many_frames), 1009);
}

TEST(WsReader, EnforcesControlFrameRules) {
  EXPECT_EQ(read_chunked(frame(fin | op_ping, std::string(125, 'x'))),
            (std::vector<seen>{{event_type::ping, std::string(125, 'x')}, waiting}));
  EXPECT_EQ(read_chunked(frame(fin | op_ping, std::string(126, 'x'))),
            std::vector<seen>{failure(error::control_too_big)});
  EXPECT_EQ(read_chunked(frame(op_ping, "x")),
            std::vector<seen>{failure(error::fragmented_control)});
  EXPECT_EQ(read_chunked(frame(op_close, "")),
            std::vector<seen>{failure(error::fragmented_control)});
}

TEST(WsReader, RefusesReservedBits) {
  for (std::uint8_t rsv : {0x40, 0x20, 0x10}) {
    EXPECT_EQ(read_chunked(frame(fin | rsv | op_text, "x")),
              std::vector<seen>{failure(error::reserved_bits)});
    EXPECT_EQ(read_chunked(frame(fin | rsv | op_pong, "")),
              std::vector<seen>{failure(error::reserved_bits)});
    EXPECT_EQ(read_chunked(frame(op_text, "x") + frame(fin | rsv | op_cont, "y")),
              std::vector<seen>{failure(error::reserved_bits)});
  }
}

TEST(WsReader, RefusesReservedOpcodes) {
  for (std::uint8_t op : {3, 4, 5, 6, 7, 11, 12, 13, 14, 15}) {
    EXPECT_EQ(read_chunked(frame(fin | op, "x")),
              std::vector<seen>{failure(error::reserved_opcode)})
        << int(op);
  }
}

TEST(WsReader, RefusesContinuationsOutOfPlace) {
  EXPECT_EQ(read_chunked(frame(fin | op_cont, "x")),
            std::vector<seen>{failure(error::unexpected_continuation)});
  EXPECT_EQ(read_chunked(frame(fin | op_text, "a") + frame(fin | op_cont, "b")),
            (std::vector<seen>{text("a"), failure(error::unexpected_continuation)}));
  EXPECT_EQ(read_chunked(frame(op_text, "a") + frame(fin | op_binary, "b")),
            std::vector<seen>{failure(error::unexpected_data_frame)});
}

TEST(WsReader, ReadsSixteenAndSixtyFourBitLengths) {
  const std::string medium(300, 'm'), big(70'000, 'b');
  EXPECT_EQ(read_chunked(frame(fin | op_text, medium)), (std::vector<seen>{text(medium), waiting}));
  EXPECT_EQ(read_all(frame(fin | op_binary, big), 4096, 100'000),
            (std::vector<seen>{binary(big), waiting}));
  // A length in a longer form than needed is refused, as Beast does.
  EXPECT_EQ(read_chunked(frame(fin | op_text, "short", true, 2)),
            std::vector<seen>{failure(error::non_minimal_length)});
  EXPECT_EQ(read_chunked(frame(fin | op_text, medium, true, 8)),
            std::vector<seen>{failure(error::non_minimal_length)});
  // The top bit of a 64-bit length must be 0: such a length exceeds any limit.
  EXPECT_EQ(read_chunked(header(fin | op_text, 0x8000000000000000)),
            std::vector<seen>{failure(error::message_too_big)});
}

TEST(WsReader, RefusesAMessageOverTheLimitFromItsHeader) {
  EXPECT_EQ(read_chunked(frame(fin | op_text, std::string(limit, 'a'))),
            (std::vector<seen>{text(std::string(limit, 'a')), waiting}));
  // Decided from the header alone: no payload byte has arrived.
  EXPECT_EQ(read_chunked(header(fin | op_binary, limit + 1)),
            std::vector<seen>{failure(error::message_too_big)});
  EXPECT_EQ(read_chunked(frame(op_text, std::string(4000, 'a')) + header(fin | op_cont, 97)),
            std::vector<seen>{failure(error::message_too_big)});
  EXPECT_EQ(close_code_for(error::message_too_big), 1009);
}

TEST(WsReader, ValidatesUtf8AcrossFragmentsAndChunks) {
  const std::string euro = "\xe2\x82\xac", clef = "\xf0\x9d\x84\x9e";  // U+20AC, U+1D11E
  const std::string wire =
      frame(op_text, "a\xe2") + frame(op_cont, "\x82") + frame(fin | op_cont, "\xac" + clef);
  EXPECT_EQ(read_chunked(wire), (std::vector<seen>{text("a" + euro + clef), waiting}));
  // Binary messages are not text.
  EXPECT_EQ(read_chunked(frame(fin | op_binary, "\xff\xfe")),
            (std::vector<seen>{binary("\xff\xfe"), waiting}));
  EXPECT_EQ(close_code_for(error::invalid_utf8), 1007);
}

TEST(WsReader, RefusesInvalidUtf8AtTheFirstImpossibleByte) {
  const std::vector<std::string> invalid{
      "\xff",     "\x80",           "\xc0",  // a byte that never starts a character
      "\xc1",     "\xe0\x80",                // overlong forms
      "\xed\xa0",                            // a UTF-16 surrogate
      "\xf4\x90", "\xf5",                    // past U+10FFFF
      "\xc3\x28", "ok\xe2\x82\x28",          // a character cut short
  };
  for (const auto& bytes : invalid) {
    // The frame promises more bytes than it sends: the failure cannot wait for its end.
    const std::string wire = frame(fin | op_text, bytes + "zzzz");
    EXPECT_EQ(read_chunked(wire.substr(0, wire.size() - 4)),
              std::vector<seen>{failure(error::invalid_utf8)})
        << testing::PrintToString(bytes);
  }
  // A message that ends inside a character, in its last frame or in an empty final frame.
  EXPECT_EQ(read_chunked(frame(fin | op_text, "a\xe2\x82")),
            std::vector<seen>{failure(error::invalid_utf8)});
  EXPECT_EQ(read_chunked(frame(op_text, "\xc3") + frame(fin | op_cont, "")),
            std::vector<seen>{failure(error::invalid_utf8)});
}

TEST(WsReader, ReadsCloseFrames) {
  EXPECT_EQ(read_chunked(frame(fin | op_close, "") + frame(fin | op_text, "after")),
            (std::vector<seen>{{event_type::close, "", no_status}}));
  EXPECT_EQ(read_chunked(frame(fin | op_close, close_payload(1001, "bye \xc3\xa9"))),
            (std::vector<seen>{{event_type::close, "bye \xc3\xa9", 1001}}));
  for (std::uint16_t code : {1000, 1003, 1007, 1013, 3000, 4999, 5000, 65535}) {
    EXPECT_EQ(read_chunked(frame(fin | op_close, close_payload(code))),
              (std::vector<seen>{{event_type::close, "", code}}))
        << code;
  }
}

TEST(WsReader, RefusesBadClosePayloads) {
  EXPECT_EQ(read_chunked(frame(fin | op_close, "\x03")),
            std::vector<seen>{failure(error::bad_close_size)});
  for (std::uint16_t code : {0, 999, 1004, 1005, 1006, 1014, 1015, 1016, 2000, 2999}) {
    EXPECT_EQ(read_chunked(frame(fin | op_close, close_payload(code))),
              std::vector<seen>{failure(error::bad_close_code)})
        << code;
  }
  EXPECT_EQ(read_chunked(frame(fin | op_close, close_payload(1000, "\xc3"))),
            std::vector<seen>{failure(error::bad_close_reason)});
  EXPECT_EQ(close_code_for(error::bad_close_reason), 1002);
}

TEST(WsReader, StopsAfterCloseOrFailure) {
  reader r(limit, frames);
  const std::string wire = frame(fin | op_close, "") + frame(fin | op_text, "x");
  std::string_view in = wire;
  EXPECT_EQ(r.next(in).type, event_type::close);
  const std::size_t left = in.size();
  EXPECT_EQ(r.next(in).type, event_type::need_more);
  EXPECT_EQ(in.size(), left);
}

TEST(WsReader, IsSmallAndHoldsNoHeapMemoryWhenIdle) {
  EXPECT_LE(sizeof(reader), 96u);
  reader r(limit, frames);
  const std::string wire = frame(op_text, std::string(1000, 'a')) +
                           frame(fin | op_ping, std::string(100, 'p')) +
                           frame(fin | op_cont, std::string(1000, 'b'));
  const std::string ping = frame(fin | op_ping, std::string(100, 'p'));
  std::string_view in = wire, first = std::string_view(ping).substr(0, 50),
                   rest = std::string_view(ping).substr(50);
  std::vector<event_type> types;
  types.reserve(8);
  // No assertion in between: gtest may allocate for itself.
  const long before = live_blocks;
  std::size_t message_size = 0;
  {
    types.push_back(r.next(in).type);
    types.push_back(r.next(in).type);
    event e = r.next(in);
    types.push_back(e.type);
    message_size = e.message.size();
  }
  types.push_back(r.next(in).type);
  const long after_message = live_blocks - before;
  // A control frame split across chunks is buffered, then released on the next call.
  types.push_back(r.next(first).type);
  const long mid_ping = live_blocks - before;
  types.push_back(r.next(rest).type);
  types.push_back(r.next(rest).type);
  const long after_ping = live_blocks - before;

  EXPECT_EQ(types, (std::vector{event_type::fragment, event_type::ping, event_type::text,
                                event_type::need_more, event_type::need_more, event_type::ping,
                                event_type::need_more}));
  EXPECT_EQ(message_size, 2000u);
  EXPECT_EQ(after_message, 0);
  EXPECT_EQ(mid_ping, 1);
  EXPECT_EQ(after_ping, 0);
}

// permessage-deflate adds no state to a connection: the inflater is the thread's (its event
// loop's), made on the first compressed message, and the reader holds nothing between messages.
TEST(WsReader, WithCompressionHoldsNoHeapMemoryWhenIdle) {
  reader r(limit, frames);
  r.accept_compressed();
  const std::string message = std::string(2000, 'c');
  const std::string wire = frame(fin | 0x40 | op_text, deflate_message(message));
  std::string_view warm = wire;
  ASSERT_EQ(r.next(warm).type, event_type::text);  // makes this thread's inflater
  std::string_view in = wire;
  const long before = live_blocks;
  std::size_t message_size = 0;
  {
    event e = r.next(in);
    message_size = e.message.size();
  }
  const event_type after = r.next(in).type;
  const long held = live_blocks - before;
  EXPECT_EQ(message_size, message.size());
  EXPECT_EQ(after, event_type::need_more);
  EXPECT_EQ(held, 0);
}

}  // namespace
}  // namespace ringcast::ws
