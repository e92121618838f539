// What an idle WebSocket costs the server's heap, counted by glibc (mallinfo2) over a few hundred
// connections made with bare sockets (the client side allocates nothing): the connection object,
// its session and their entries, Asio's descriptor state and pending wait, and nothing else
// (docs/performance.md, "What an idle connection holds").
#include <malloc.h>
#include <sys/socket.h>
#include <unistd.h>
#include <cstdio>

#include <cstdlib>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "../glibc_heap.hpp"
#include "bare_websocket.hpp"
#include "core/node_messages.hpp"
#include "core/presence.hpp"
#include "core/pusher_channels.hpp"
#include "net/pusher_connection.hpp"
#include "net/pusher_door.hpp"
#include "net/sse_connection.hpp"
#include "net/ws_connection.hpp"
#include "test_loop.hpp"

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using test::client_frame;
using test::continuation_end;
using test::next_frame;
using test::open_websocket;
using test::text_start;
using test::text_whole;

std::int64_t heap_in_use() {
  return static_cast<std::int64_t>(mallinfo2().uordblks);
}

// How many connections each figure is counted over.
constexpr int counted = 300;

// A ringcast WebSocket (/ws), read up to its hello.
int open_websocket(std::uint16_t port, int i) {
  return open_websocket(port, fmt::format("/ws?user=u{}&sid=s{}", i, i), R"("type":"hello")");
}

void send_all(int fd, std::string_view bytes) {
  ASSERT_EQ(::send(fd, bytes.data(), bytes.size(), 0), static_cast<ssize_t>(bytes.size()));
}

config heartbeat_every_second() {
  config cfg;
  cfg.tick = 10ms;
  cfg.heartbeat = 1s;
  cfg.idle_timeout = 10s;
  return cfg;
}

// What reading a client and writing to it take is given back once the connection is idle again:
// 300 WebSockets that each sent a frame hold, once answered and again after a heartbeat, what
// they held before they sent anything (no queue storage, no frame reader; the rate bucket is 8
// bytes in the connection). The heap
// per idle WebSocket is printed, a figure (docs/performance.md, "What an idle connection holds";
// bench/idle_memory measures it against the floor and Nchan): this test asserts only that using
// a connection leaves nothing behind.
TEST(IdleMemory, AnIdleWebSocketGivesBackWhatReadingAndWritingTook) {
  if (!test::glibc_counts_the_heap()) GTEST_SKIP() << "mallinfo2 does not see this allocator";
  test::test_loop loop(heartbeat_every_second());
  std::vector<int> fds;
  // The first connections' one-time allocations (Asio's, the maps' first buckets) are not counted;
  // they also send their frame first, so that what a first frame grows once is grown here.
  for (int i = 0; i < 20; ++i) {
    fds.push_back(open_websocket(loop.port(), i));
    ASSERT_GE(fds.back(), 0);
    send_all(fds.back(), client_frame(text_whole, R"({"type":"ping"})"));
    ASSERT_EQ(next_frame(fds.back()).second, R"({"type":"pong"})");
  }
  loop.run([] {});
  const std::int64_t before = heap_in_use();
  for (int i = 20; i < 20 + counted; ++i) {
    fds.push_back(open_websocket(loop.port(), i));
    ASSERT_GE(fds.back(), 0);
  }
  loop.run([] {});  // the loop is idle: every hello written, every connection waiting to read
  const std::int64_t fresh = heap_in_use();
  std::printf("heap per idle WebSocket: %lld bytes\n",
              static_cast<long long>((fresh - before) / counted));
  EXPECT_EQ(loop.run([&] { return loop.stats().ws; }), 20u + counted);

  for (int i = 20; i < 20 + counted; ++i) {
    send_all(fds[i], client_frame(text_whole, R"({"type":"ping"})"));
    ASSERT_EQ(next_frame(fds[i]).second, R"({"type":"pong"})");
  }
  loop.run([] {});
  const std::int64_t answered = heap_in_use();
  // The reader goes with the message it read (fails on the door that kept it to the heartbeat).
  EXPECT_LT((answered - fresh) / counted, 8)
      << (answered - fresh) / counted << " heap bytes a connection kept after its answer";
  loop.advance(1s + 20ms);  // a heartbeat
  for (int fd : fds)
    ASSERT_EQ(next_frame(fd).first, 0x89);  // the heartbeat's ping
  loop.run([] {});
  const std::int64_t used_then_idle = heap_in_use();
  // A reader or a bucket kept would be tens of bytes a connection; allocator rounding is less.
  EXPECT_LT((used_then_idle - fresh) / counted, 8)
      << (used_then_idle - fresh) / counted << " heap bytes a connection kept after its frame";
  for (int fd : fds)
    ::close(fd);
}

// What reading a client takes is dropped only between messages: a message begun before a
// heartbeat (when that state is given back if it can be) is read whole after it.
TEST(IdleMemory, AMessageSplitAroundAHeartbeatIsReadWhole) {
  config cfg = heartbeat_every_second();
  test::test_loop loop(cfg);
  const int fd = open_websocket(loop.port(), 1);
  ASSERT_GE(fd, 0);
  send_all(fd, client_frame(text_start, R"({"type":)"));
  loop.run([] {});
  loop.advance(1s + 20ms);
  EXPECT_EQ(next_frame(fd).first, 0x89);  // the heartbeat's ping
  send_all(fd, client_frame(continuation_end, R"("ping"})"));
  EXPECT_EQ(next_frame(fd), std::make_pair(std::uint8_t{0x81}, std::string(R"({"type":"pong"})")));
  ::close(fd);
}

// The rate bucket is given back only when full (a new one starts full): one drained by a burst
// is kept through a heartbeat, and the frame after it is over the rate.
TEST(IdleMemory, ABucketDrainedBeforeAHeartbeatStillLimitsAfterIt) {
  config cfg = heartbeat_every_second();
  cfg.client_message_rate = 1;  // bursts of 2
  test::test_loop loop(cfg);
  const int fd = open_websocket(loop.port(), 1);
  ASSERT_GE(fd, 0);
  for (int i = 0; i < 2; ++i) {
    send_all(fd, client_frame(text_whole, R"({"type":"ping"})"));
    EXPECT_EQ(next_frame(fd).second, R"({"type":"pong"})");
  }
  loop.advance(1s + 20ms);  // one token back of two: not full
  EXPECT_EQ(next_frame(fd).first, 0x89);
  send_all(fd, client_frame(text_whole, R"({"type":"ping"})"));
  EXPECT_EQ(next_frame(fd).second, R"({"type":"pong"})");
  send_all(fd, client_frame(text_whole, R"({"type":"ping"})"));
  const auto [opcode, payload] = next_frame(fd);
  EXPECT_EQ(opcode, 0x88);  // close, 1008
  ASSERT_GE(payload.size(), 2u);
  EXPECT_EQ((static_cast<std::uint8_t>(payload[0]) << 8) | static_cast<std::uint8_t>(payload[1]),
            1008);
  ::close(fd);
}

// An SSE stream (/sse), read up to its hello.
int open_event_stream(std::uint16_t port, int i) {
  return test::open_connection(
      port, fmt::format("GET /sse?user=u{}&sid=s{} HTTP/1.1\r\nHost: test\r\n\r\n", i, i),
      [](const std::string& got) {
        return got.find("event: hello") != std::string::npos && got.ends_with("\n\n");
      });
}

// The heap per connection that `counted` connections opened by `open(i)`, i from `first`, hold
// once the loop is idle again (their descriptors go into `fds`).
template <class Open>
std::int64_t heap_per_connection(test::test_loop& loop, std::vector<int>& fds, Open open,
                                 int first) {
  loop.run([] {});
  const std::int64_t before = heap_in_use();
  for (int i = first; i < first + counted; ++i) {
    open(i);
    EXPECT_GE(fds.back(), 0);
  }
  loop.run([] {});
  return (heap_in_use() - before) / counted;
}

// An idle SSE stream holds what an idle WebSocket holds, give or take the two connection objects'
// sizes: its session is the same, and so is the one wait it keeps pending (for the client's
// hang-up). 300 of each, in turn, on one loop.
TEST(IdleMemory, AnIdleEventStreamHoldsWhatAWebSocketHoldsGiveOrTakeItsObject) {
  if (!test::glibc_counts_the_heap()) GTEST_SKIP() << "mallinfo2 does not see this allocator";
  test::test_loop loop(heartbeat_every_second());
  std::vector<int> fds;
  auto open_ws = [&](int i) { fds.push_back(open_websocket(loop.port(), i)); };
  auto open_sse = [&](int i) { fds.push_back(open_event_stream(loop.port(), i)); };
  for (int i = 0; i < 20; ++i) {  // one-time allocations of both kinds
    open_ws(i);
    open_sse(1000 + i);
  }
  const std::int64_t ws = heap_per_connection(loop, fds, open_ws, 20);
  const std::int64_t sse = heap_per_connection(loop, fds, open_sse, 1020);
  std::printf("heap per idle connection: WebSocket %lld, SSE %lld bytes\n",
              static_cast<long long>(ws), static_cast<long long>(sse));
  const auto objects = static_cast<std::int64_t>(sizeof(sse_connection)) -
                       static_cast<std::int64_t>(sizeof(ws_connection));
  EXPECT_LE(sse - ws, objects + 32) << "32: two blocks' rounding to 16 bytes";
  for (int fd : fds)
    ::close(fd);
  loop.run([] {});
}

// The node's publish path, which a Pusher client reaches only by a client event: none here.
class no_publishes final : public node_messages {
 public:
  void publish(const publish_request&, boost::asio::any_io_executor,
               std::function<void(std::optional<publish_receipt>)>) override {
    ADD_FAILURE() << "nothing here publishes";
  }
  void kick(std::string, boost::asio::any_io_executor, std::function<void(std::size_t)>) override {
    ADD_FAILURE() << "nothing here kicks";
  }
};

// A test loop with the Pusher door of app "1" (key "key") open.
struct loop_with_pusher_door {
  test::test_loop loop{heartbeat_every_second()};
  presence_counts presence;
  pusher_channels channels{presence};
  no_publishes messages;
  pusher_door door{{.id = "1", .key = "key", .secret = "secret"}, messages, channels};
  loop_with_pusher_door() { loop.set_pusher(&door); }
};

// The Pusher door's idle connection gives back what reading its client took, as a ringcast
// WebSocket does: 300 Pusher connections that each sent pusher:ping hold, once answered and
// again after a heartbeat, what they held before they sent anything (no frame reader).
// Fails on the door that held its reader and buckets inline (tens of bytes kept a connection,
// a reader's buffer grown by the first frame).
TEST(IdleMemory, AnIdlePusherConnectionGivesBackWhatReadingTook) {
  if (!test::glibc_counts_the_heap()) GTEST_SKIP() << "mallinfo2 does not see this allocator";
  loop_with_pusher_door with_door;
  test::test_loop& loop = with_door.loop;
  const std::string ping = client_frame(text_whole, R"({"event":"pusher:ping","data":{}})");
  const std::string pong = R"({"event":"pusher:pong","data":{}})";
  std::vector<int> fds;
  auto open_pusher = [&] {
    fds.push_back(
        open_websocket(loop.port(), "/app/key?protocol=7", "pusher:connection_established"));
  };
  for (int i = 0; i < 20; ++i) {  // one-time allocations, and what a first frame grows once
    open_pusher();
    ASSERT_GE(fds.back(), 0);
    send_all(fds.back(), ping);
    ASSERT_EQ(next_frame(fds.back()).second, pong);
  }
  loop.run([] {});
  const std::int64_t before = heap_in_use();
  for (int i = 0; i < counted; ++i) {
    open_pusher();
    ASSERT_GE(fds.back(), 0);
  }
  loop.run([] {});
  const std::int64_t fresh = heap_in_use();
  std::printf("heap per idle Pusher connection: %lld bytes\n",
              static_cast<long long>((fresh - before) / counted));
  for (int i = 20; i < 20 + counted; ++i) {
    send_all(fds[i], ping);
    ASSERT_EQ(next_frame(fds[i]).second, pong);
  }
  loop.run([] {});
  const std::int64_t answered = heap_in_use();
  // The reader goes with the message it read (fails on the door that kept it to the heartbeat).
  EXPECT_LT((answered - fresh) / counted, 8)
      << (answered - fresh) / counted << " heap bytes a connection kept after its answer";
  loop.advance(1s + 20ms);  // a heartbeat: every bucket is full again
  for (int fd : fds)
    ASSERT_EQ(next_frame(fd).second, R"({"event":"pusher:ping","data":{}})");
  loop.run([] {});
  const std::int64_t used_then_idle = heap_in_use();
  EXPECT_LT((used_then_idle - fresh) / counted, 8)
      << (used_then_idle - fresh) / counted << " heap bytes a connection kept after its frame";
  for (int fd : fds)
    ::close(fd);
  loop.run([] {});
}

// An idle Pusher connection holds what an idle ringcast WebSocket holds, plus its own fields and
// the longer session key its names make (a string past the short-string buffer), and nothing
// else: 300 of each, in turn, on one loop. Fails on the door whose idle wait kept the ~1 KB
// block Asio recycled from the upgrade's write (976 bytes more than a WebSocket, not ~90):
// tls/exact_size_allocator.hpp.
TEST(IdleMemory, AnIdlePusherConnectionHoldsWhatAWebSocketHoldsPlusItsFields) {
  if (!test::glibc_counts_the_heap()) GTEST_SKIP() << "mallinfo2 does not see this allocator";
  loop_with_pusher_door with_door;
  test::test_loop& loop = with_door.loop;
  std::vector<int> fds;
  auto open_ws = [&](int i) { fds.push_back(open_websocket(loop.port(), i)); };
  auto open_pusher = [&](int) {
    fds.push_back(
        open_websocket(loop.port(), "/app/key?protocol=7", "pusher:connection_established"));
  };
  for (int i = 0; i < 20; ++i) {  // one-time allocations of both doors
    open_ws(i);
    open_pusher(i);
  }
  const std::int64_t ws = heap_per_connection(loop, fds, open_ws, 20);
  const std::int64_t pusher = heap_per_connection(loop, fds, open_pusher, 0);
  std::printf("heap per idle connection: WebSocket %lld, Pusher %lld bytes\n",
              static_cast<long long>(ws), static_cast<long long>(pusher));
  const auto own_fields = static_cast<std::int64_t>(sizeof(pusher_connection)) -
                          static_cast<std::int64_t>(sizeof(ws_connection));
  constexpr std::int64_t longer_key = 32;  // a heap string's smallest block
  EXPECT_LE(pusher - ws, own_fields + longer_key + 32) << "32: two blocks' rounding to 16 bytes";
  for (int fd : fds)
    ::close(fd);
  loop.run([] {});
}

}  // namespace
}  // namespace ringcast
