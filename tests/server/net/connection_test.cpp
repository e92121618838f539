// The connection classes over real loopback sockets, with every timeout on a simulated clock
// (test_loop): HTTP keep-alive and the handshake deadline, a held long-poll, SSE, WebSocket, and
// the hand-off of an admitted connect to its session's loop.
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/websocket.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "bare_websocket.hpp"
#include "core/message.hpp"
#include "protocol/client_address.hpp"
#include "protocol/client_auth.hpp"
#include "test_loop.hpp"

namespace ringcast {
namespace {

using namespace std::chrono_literals;
namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

config short_timeouts() {
  config cfg;
  cfg.tick = 10ms;
  cfg.handshake_timeout = 1s;
  cfg.keepalive_timeout = 2s;
  cfg.poll_timeout = 3s;
  cfg.heartbeat = 5s;
  cfg.idle_timeout = 2s;
  cfg.session_ttl = 30s;
  return cfg;
}

void send(tcp::socket& s, std::string_view text) {
  asio::write(s, asio::buffer(text));
}

std::string get(std::string_view target) {
  return "GET " + std::string(target) + " HTTP/1.1\r\nHost: test\r\n\r\n";
}

http::response<http::string_body> read_response(tcp::socket& s, beast::flat_buffer& buffer) {
  http::response<http::string_body> res;
  if (buffer.size() == 0 && !test::readable_within_5s(s.native_handle())) {
    ADD_FAILURE() << "no response within 5 s";
    return res;
  }
  http::read(s, buffer, res);
  return res;
}

// True when the server closed the connection: a read ends with EOF (or a reset).
bool closed_by_server(tcp::socket& s) {
  if (!test::readable_within_5s(s.native_handle())) return false;
  char byte;
  boost::system::error_code ec;
  s.read_some(asio::buffer(&byte, 1), ec);
  return ec == asio::error::eof || ec == asio::error::connection_reset;
}

// A WebSocket read bounded as test::readable_within_5s bounds a read (Beast may hold the frame
// already, so no poll()).
void ws_read(beast::websocket::stream<tcp::socket>& ws, beast::flat_buffer& buffer,
             boost::system::error_code& ec) {
  auto& io = static_cast<asio::io_context&>(ws.get_executor().context());
  ec = asio::error::timed_out;
  ws.async_read(buffer, [&ec](boost::system::error_code e, std::size_t) { ec = e; });
  io.restart();
  io.run_for(5s);
}

message_ptr publish(test::test_loop& loop, std::uint64_t id) {
  return loop.run([&loop, id] {
    auto m = make_message(id, 1'700'000'000'000, {}, R"({"n":1})");
    loop.sessions().publish(m, loop.now());
    return m;
  });
}

// Waits (bounded) until `done` holds on the loop: for effects of a client's own action, such
// as a hang-up, which the loop sees when the kernel tells it.
template <class F>
bool eventually(test::test_loop& loop, F done) {
  for (int i = 0; i < 2000; ++i) {
    if (loop.run(done)) return true;
    std::this_thread::sleep_for(1ms);
  }
  return false;
}

TEST(HttpConnection, KeepAliveIsAnnouncedAndEndsAtItsTimeout) {
  test::test_loop loop(short_timeouts());
  auto c = loop.connect();
  beast::flat_buffer buffer;
  send(c, get("/healthz"));
  auto res = read_response(c, buffer);
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(res[http::field::keep_alive], "timeout=2");
  // The client may see the reply before the server has re-armed the connection's deadline.
  auto waiting_for_next_request = [&] { return loop.idle_connections() == 1; };

  ASSERT_TRUE(eventually(loop, waiting_for_next_request));
  loop.advance(2s - 10ms);  // one tick short: still open, the next request is served
  send(c, get("/healthz"));
  EXPECT_EQ(read_response(c, buffer).result(), http::status::ok);

  ASSERT_TRUE(eventually(loop, waiting_for_next_request));
  loop.advance(2s + 10ms);  // the keep-alive timeout since that reply, and at most one tick
  EXPECT_TRUE(closed_by_server(c));
  // Not reusing a keep-alive connection is no expiration.
  EXPECT_EQ(loop.run([&] { return loop.stats().handshake; }), 0u);
}

// A head read whole in one piece is parsed where the loop read it, and what came after it (here
// the next request, pipelined) is kept for the next read; a head that comes in two pieces is
// gathered in the connection's own buffer.
TEST(HttpConnection, AWholeHeadKeepsWhatFollowsItAndAHeadInTwoPiecesIsGathered) {
  test::test_loop loop(short_timeouts());
  auto c = loop.connect();
  beast::flat_buffer buffer;
  send(c, get("/healthz") + get("/nowhere"));
  EXPECT_EQ(read_response(c, buffer).result(), http::status::ok);
  EXPECT_EQ(read_response(c, buffer).result(), http::status::not_found);

  const std::string head = get("/healthz");
  send(c, head.substr(0, 20));
  // Long enough for the loop to have read the first piece on its own, most of the time; the reply
  // is the same either way.
  std::this_thread::sleep_for(20ms);
  send(c, head.substr(20));
  EXPECT_EQ(read_response(c, buffer).result(), http::status::ok);
}

TEST(HttpConnection, NoKeepAliveUnderOneSecond) {
  auto cfg = short_timeouts();
  cfg.keepalive_timeout = 0ms;
  test::test_loop loop(cfg);
  auto c = loop.connect();
  beast::flat_buffer buffer;
  send(c, get("/healthz"));
  auto res = read_response(c, buffer);
  EXPECT_FALSE(res.keep_alive());
  EXPECT_EQ(res.count(http::field::keep_alive), 0u);
  EXPECT_TRUE(closed_by_server(c));
}

TEST(HttpConnection, HandshakeDeadlineClosesSilentAndHalfSentConnectionsAndCountsThemApart) {
  test::test_loop loop(short_timeouts());
  auto early = loop.connect();
  auto silent = loop.connect();
  auto half = loop.connect();
  ASSERT_TRUE(eventually(loop, [&] { return loop.open_connections() == 3; }));
  send(half, "GET /healthz HTTP/1.1\r\n");
  loop.advance(1s - 10ms);
  beast::flat_buffer buffer;
  send(early, get("/healthz"));  // within the deadline: served
  EXPECT_EQ(read_response(early, buffer).result(), http::status::ok);

  loop.advance(20ms);  // past the deadline by at most one tick
  EXPECT_TRUE(closed_by_server(silent));
  EXPECT_TRUE(closed_by_server(half));
  // Half a request is a failed handshake; a connection that sent nothing is only unused.
  EXPECT_EQ(loop.run([&] { return loop.stats().handshake; }), 1u);
  EXPECT_EQ(loop.run([&] { return loop.stats().unused; }), 1u);
}

TEST(HttpConnection, AClientThatHangsUpBeforeSendingAByteCountsAsUnused) {
  test::test_loop loop(short_timeouts());
  auto c = loop.connect();
  ASSERT_TRUE(eventually(loop, [&] { return loop.open_connections() == 1; }));
  c.close();
  EXPECT_TRUE(eventually(loop, [&] { return loop.stats().unused == 1; }));
  EXPECT_EQ(loop.run([&] { return loop.stats().handshake; }), 0u);
}

TEST(HttpConnection, DrainClosesWaitingConnectionsAndAnswersAHalfSentRequest503) {
  test::test_loop loop(short_timeouts());
  auto silent = loop.connect();
  auto half = loop.connect();
  ASSERT_TRUE(eventually(loop, [&] { return loop.open_connections() == 2; }));
  send(half, "GET /healthz HTTP/1.1\r\n");
  ASSERT_TRUE(eventually(loop, [&] { return loop.idle_connections() == 2; }));
  loop.drain_idle_connections();
  EXPECT_TRUE(closed_by_server(silent));

  send(half, "Host: test\r\n\r\n");
  beast::flat_buffer buffer;
  auto res = read_response(half, buffer);
  EXPECT_EQ(res.result(), http::status::service_unavailable);
  EXPECT_EQ(res[http::field::retry_after], "5");
  EXPECT_FALSE(res.keep_alive());
  EXPECT_TRUE(closed_by_server(half));
}

// Strict HTTP (issue 25): an ambiguous request is refused and its connection closed; the server
// reads and drops what the client still sends for 2 s (simulated), so no reset eats the reply.
TEST(HttpConnection, AmbiguousFramingIs400ThenTheConnectionLingersTwoSecondsAtMost) {
  test::test_loop loop(short_timeouts());
  auto c = loop.connect();
  beast::flat_buffer buffer;
  send(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked, identity\r\n\r\n" +
              get("/metrics"));
  auto res = read_response(c, buffer);
  EXPECT_EQ(res.result(), http::status::bad_request);
  EXPECT_FALSE(res.keep_alive());
  ASSERT_TRUE(eventually(loop, [&] { return loop.idle_connections() == 1; }));
  send(c, "more bytes the client had on their way");
  loop.advance(2s - 10ms);
  send(c, "still read and dropped");
  loop.advance(20ms);
  EXPECT_TRUE(closed_by_server(c));
  EXPECT_TRUE(eventually(loop, [&] { return loop.open_connections() == 0; }));
}

// Issue 35: every TCP connection counts against its address from accept(), a silent one too, and
// one over the limit is closed there; a stream keeps its connection's place, and a connection's
// end frees it.
TEST(HttpConnection, PerAddressLimitCountsEveryConnectionFromAccept) {
  test::test_loop loop(short_timeouts());
  loop.client_addresses().configure({.max_connections = 2, .connect_rate = 0});
  auto silent = loop.connect();
  auto stream = loop.connect();
  send(stream, get("/sse?user=a"));
  EXPECT_NE(test::read_until(stream.native_handle(), "hello").find("hello"), std::string::npos);
  auto third = loop.connect();
  EXPECT_TRUE(closed_by_server(third));
  EXPECT_EQ(loop.client_addresses().snapshot().refused_connections, 1u);
  silent.close();
  ASSERT_TRUE(eventually(loop, [&] { return loop.open_connections() == 1; }));
  auto fourth = loop.connect();
  beast::flat_buffer buffer;
  send(fourth, get("/healthz"));
  EXPECT_EQ(read_response(fourth, buffer).result(), http::status::ok);
  stream.close();
  fourth.close();
  ASSERT_TRUE(eventually(loop, [&] { return loop.client_addresses().snapshot().addresses == 0; }));
}

// Issue 35: a body is read only for a request its header shows to be authorized and to a method
// that takes one. Here no byte of the announced body is sent: the answer comes from the header,
// and the connection closes (its body was never read).
TEST(HttpConnection, ABodyIsRefusedFromTheHeaderBeforeItIsRead) {
  test::test_loop loop(short_timeouts());
  loop.mutable_settings().admin_token = "secret";
  const auto answer = [&loop](std::string head) {
    auto c = loop.connect();
    beast::flat_buffer buffer;
    send(c, head);
    auto res = read_response(c, buffer);
    EXPECT_FALSE(res.keep_alive()) << head;
    EXPECT_TRUE(closed_by_server(c)) << head;
    return res.result();
  };
  EXPECT_EQ(answer("POST /admin/stats HTTP/1.1\r\nHost: x\r\nContent-Length: 60000\r\n\r\n"),
            http::status::unauthorized);
  EXPECT_EQ(answer("POST /admin/nope HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"),
            http::status::unauthorized);
  EXPECT_EQ(answer("GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 60000\r\n\r\n"),
            http::status::payload_too_large);
  EXPECT_EQ(answer("GET /index.html HTTP/1.1\r\nHost: x\r\nContent-Length: 60000\r\n\r\n"),
            http::status::payload_too_large);
}

TEST(PollConnection, HeldUntilAMessageThenTheConnectionServesTheNextPoll) {
  test::test_loop loop(short_timeouts());
  auto c = loop.connect();
  beast::flat_buffer buffer;
  send(c, get("/poll?user=u&sid=a"));
  ASSERT_TRUE(eventually(loop, [&] { return loop.sessions().connected_count() == 1; }));

  const auto m = publish(loop, 41);
  auto res = read_response(c, buffer);
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(res.body(), m->poll_body);
  EXPECT_EQ(res[http::field::keep_alive], "timeout=2");
  EXPECT_EQ(loop.run([&] { return loop.sessions().connected_count(); }), 0u);

  // The same connection, back to HTTP: the next poll is held until --poll-timeout.
  send(c, get("/poll?user=u&sid=a&since=41"));
  ASSERT_TRUE(eventually(loop, [&] { return loop.sessions().connected_count() == 1; }));
  loop.advance(3s - 10ms);
  EXPECT_EQ(loop.run([&] { return loop.sessions().connected_count(); }), 1u);
  loop.advance(20ms);
  res = read_response(c, buffer);
  EXPECT_NE(res.body().find(R"("type":"reconnect","reason":"timeout")"), std::string::npos)
      << res.body();
  EXPECT_EQ(loop.run([&] { return loop.stats().poll_timeout; }), 1u);
}

// The loop's registry (connection_registry.hpp) follows one TCP connection from object to object:
// HTTP waiting for a request, a held poll (parked, for an upgrade to take), HTTP again.
TEST(PollConnection, TheLoopsRegistryFollowsTheConnectionFromHttpToAHeldPollAndBack) {
  test::test_loop loop(short_timeouts());
  // On the loop's thread (inside loop.run or eventually).
  const auto open_of = [&](connection_kind kind) {
    const connection_registry& r = loop.connections();
    return r.count(kind, connection_state::idle) + r.count(kind, connection_state::busy) +
           r.count(kind, connection_state::parked);
  };
  auto c = loop.connect();
  beast::flat_buffer buffer;
  ASSERT_TRUE(eventually(loop, [&] { return loop.idle_connections() == 1; }));
  send(c, get("/poll?user=u&sid=a"));
  ASSERT_TRUE(eventually(loop, [&] { return loop.sessions().connected_count() == 1; }));
  const auto held = loop.run(
      [&] { return loop.connections().count(connection_kind::poll, connection_state::parked); });
  EXPECT_EQ(held, 1u);
  EXPECT_TRUE(eventually(loop, [&] { return open_of(connection_kind::http) == 0; }));

  publish(loop, 41);
  EXPECT_EQ(read_response(c, buffer).result(), http::status::ok);
  EXPECT_TRUE(eventually(loop, [&] { return loop.idle_connections() == 1; }));
  EXPECT_TRUE(eventually(loop, [&] { return open_of(connection_kind::poll) == 0; }));
  c.close();
  EXPECT_TRUE(eventually(loop, [&] { return open_of(connection_kind::http) == 0; }));
}

TEST(PollConnection, AHangUpFreesTheSessionAtOnce) {
  test::test_loop loop(short_timeouts());
  auto c = loop.connect();
  send(c, get("/poll?user=u"));
  ASSERT_TRUE(eventually(loop, [&] { return loop.sessions().connected_count() == 1; }));
  c.close();
  EXPECT_TRUE(eventually(loop, [&] { return loop.sessions().connected_count() == 0; }));
}

// ---- the write deadline (--write-timeout) ---------------------------------------------------

// A write timeout apart from every other timeout of short_timeouts(), so that the loop's next
// timer tells a pending write from anything else.
constexpr auto write_timeout = 1500ms;

config never_read_setup() {
  auto cfg = short_timeouts();
  cfg.write_timeout = write_timeout;
  return cfg;
}

// Publishes `count` broadcasts of about 60 KB each.
void publish_large(test::test_loop& loop, std::uint64_t first_id, int count) {
  const std::string data = '"' + std::string(60 * 1024, 'x') + '"';
  loop.run([&] {
    for (int i = 0; i < count; ++i)
      loop.sessions().publish(make_message(first_id + i, 1'700'000'000'000, {}, data), loop.now());
    return 0;
  });
}

std::uint64_t write_timeouts(test::test_loop& loop) {
  return loop.run([&] { return loop.stats().write_timeout; });
}

// The server has a write that the socket would not take: its deadline is the loop's next timer.
bool write_pending(test::test_loop& loop) {
  return eventually(loop,
                    [&] { return loop.timers().wheel().next_due() == loop.now() + write_timeout; });
}

// Not closed one tick before the deadline; closed and counted at it (at most one tick late).
void expect_closed_at_the_write_timeout(test::test_loop& loop) {
  loop.advance(write_timeout - 10ms);
  EXPECT_EQ(write_timeouts(loop), 0u);
  EXPECT_EQ(loop.open_connections(), 1u);
  loop.advance(20ms);
  EXPECT_EQ(write_timeouts(loop), 1u);
  EXPECT_TRUE(eventually(loop, [&] { return loop.open_connections() == 0; }));
}

TEST(WriteDeadline, APollReplyNotReadIsClosedAtTheWriteTimeout) {
  test::test_loop loop(never_read_setup());
  loop.set_send_buffer(4096);
  publish_large(loop, 1, 30);
  auto c = loop.connect_small();
  send(c, get("/poll?user=u&since=1"));  // about 1 MiB owed, the sockets take a few KB
  ASSERT_TRUE(write_pending(loop));
  expect_closed_at_the_write_timeout(loop);
}

TEST(WriteDeadline, AnSseStreamNotReadIsClosedAtTheWriteTimeout) {
  test::test_loop loop(never_read_setup());
  loop.set_send_buffer(4096);
  auto c = loop.connect_small();
  send(c, get("/sse?user=u"));
  ASSERT_TRUE(eventually(loop, [&] { return loop.sessions().connected_count() == 1; }));
  publish_large(loop, 1, 10);  // 600 KB queued: far more than the sockets hold, under --max-queue
  ASSERT_TRUE(write_pending(loop));
  expect_closed_at_the_write_timeout(loop);
  EXPECT_EQ(loop.run([&] { return loop.sessions().connected_count(); }), 0u);
}

TEST(WriteDeadline, AStreamThatKeepsReadingIsNotClosed) {
  test::test_loop loop(never_read_setup());
  auto c = loop.connect();
  send(c, get("/sse?user=u"));
  test::read_until(c.native_handle(), "event: hello");
  for (std::uint64_t id = 1; id <= 6; ++id) {
    publish(loop, id);
    test::read_until(c.native_handle(), "\n\n");
    loop.advance(500ms);  // twice --write-timeout in all: every frame is written at once
  }
  EXPECT_EQ(write_timeouts(loop), 0u);
  EXPECT_EQ(loop.run([&] { return loop.sessions().connected_count(); }), 1u);
}

TEST(WriteDeadline, AnHttpReplyNotReadIsClosedAtTheWriteTimeout) {
  const auto root = std::filesystem::temp_directory_path() /
                    ("ringcast-write-deadline-" + std::to_string(::getpid()));
  std::filesystem::create_directories(root);
  std::ofstream(root / "big.txt") << std::string(1 << 20, 'x');
  test::test_loop loop(never_read_setup());
  loop.mutable_settings().web_root = root.string();
  loop.set_send_buffer(4096);
  auto c = loop.connect_small();
  send(c, get("/big.txt"));
  ASSERT_TRUE(write_pending(loop));
  expect_closed_at_the_write_timeout(loop);
  std::filesystem::remove_all(root);
}

// ---- sessions refused on their loop (--max-sessions-per-user, --max-sessions) ----------------

TEST(SessionRoom, AFullUserIsAnswered429AndTheConnectionReadsOn) {
  auto cfg = short_timeouts();
  cfg.max_sessions_per_user = 1;
  test::test_loop loop(cfg);
  auto held = loop.connect();
  send(held, get("/poll?user=u&sid=a"));
  ASSERT_TRUE(eventually(loop, [&] { return loop.sessions().connected_count() == 1; }));
  auto c = loop.connect();
  beast::flat_buffer buffer;
  send(c, get("/poll?user=u&sid=b"));
  auto res = read_response(c, buffer);
  EXPECT_EQ(res.result(), http::status::too_many_requests);
  EXPECT_NE(res.body().find(R"("error":"too_many")"), std::string::npos) << res.body();
  EXPECT_EQ(res[http::field::retry_after], "1");
  EXPECT_TRUE(res.keep_alive());
  // The same connection reads on: another user's poll is held.
  send(c, get("/poll?user=v"));
  EXPECT_TRUE(eventually(loop, [&] { return loop.sessions().connected_count() == 2; }));
  EXPECT_EQ(loop.run([&] { return loop.stats().sessions_refused_user; }), 1u);
}

TEST(SessionRoom, BeyondMaxSessionsIsAnswered503) {
  auto cfg = short_timeouts();
  cfg.max_sessions = 1;
  test::test_loop loop(cfg);
  auto held = loop.connect();
  send(held, get("/poll?user=u"));
  ASSERT_TRUE(eventually(loop, [&] { return loop.sessions().connected_count() == 1; }));
  auto c = loop.connect();
  beast::flat_buffer buffer;
  send(c, get("/poll?user=v"));
  auto res = read_response(c, buffer);
  EXPECT_EQ(res.result(), http::status::service_unavailable);
  EXPECT_NE(res.body().find(R"("error":"overloaded")"), std::string::npos) << res.body();
  EXPECT_EQ(res[http::field::retry_after], "1");
  // An existing session is never refused: this poll replaces the held one.
  send(c, get("/poll?user=u"));
  beast::flat_buffer held_buffer;
  EXPECT_NE(read_response(held, held_buffer).body().find(R"("reason":"replaced")"),
            std::string::npos);
  EXPECT_EQ(loop.run([&] { return loop.sessions().session_count(); }), 1u);
}

TEST(SseConnection, HelloThenMessagesThenHeartbeatsOnTheSimulatedClock) {
  test::test_loop loop(short_timeouts());
  auto c = loop.connect();
  send(c, get("/sse?user=u"));
  const std::string head = test::read_until(c.native_handle(), "event: hello");
  EXPECT_NE(head.find("Content-Type: text/event-stream"), std::string::npos) << head;

  const auto m = publish(loop, 7);
  EXPECT_NE(
      test::read_until(c.native_handle(), "\n\n").find("id: 7\nevent: message\ndata: " + m->json),
      std::string::npos);
  loop.advance(5s + 10ms);  // --heartbeat without traffic
  EXPECT_NE(test::read_until(c.native_handle(), ": hb\n\n").find(": hb"), std::string::npos);
}

TEST(WsConnection, IdleTimeoutOnTheSimulatedClock) {
  test::test_loop loop(short_timeouts());
  beast::websocket::stream<tcp::socket> ws(loop.connect());
  ws.handshake("127.0.0.1", "/ws?user=u&sid=w");
  beast::flat_buffer buffer;
  boost::system::error_code ec;
  ws_read(ws, buffer, ec);
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_NE(beast::buffers_to_string(buffer.data()).find(R"("type":"hello")"), std::string::npos);
  buffer.clear();

  loop.advance(2s - 10ms);
  ws.write(asio::buffer(std::string_view(R"({"type":"ping"})")));  // activity
  ws_read(ws, buffer, ec);
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(beast::buffers_to_string(buffer.data()), R"({"type":"pong"})");
  buffer.clear();

  loop.advance(2s - 10ms);
  loop.advance(20ms);  // --idle-timeout since the ping, and at most one tick
  ws_read(ws, buffer, ec);
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_NE(beast::buffers_to_string(buffer.data()).find(R"("type":"close","reason":"idle")"),
            std::string::npos);
  ws_read(ws, buffer, ec);
  EXPECT_EQ(ec, beast::websocket::error::closed);
  EXPECT_EQ(ws.reason().code, beast::websocket::close_code::normal);
}

// A connect read on one loop and served on another is admitted once: the home loop would refuse
// this token (another secret), so it must not verify it again.
TEST(Admission, TheHandOffCarriesTheAdmission) {
  test::test_loop reader(short_timeouts()), home(short_timeouts());
  reader.set_tokens(std::make_shared<const token_verifier>(
      std::move(*token_verifier::with_secret("right", false).value)));
  home.set_tokens(std::make_shared<const token_verifier>(
      std::move(*token_verifier::with_secret("other", false).value)));
  reader.set_home([&](std::string_view) -> connection_context& { return home; });

  const auto exp = reader.run([&] { return reader.timers().unix_ms(); }) / 1000 + 300;
  auto c = reader.connect();
  send(c, get("/poll?token=" + mint_hs256("right", "alice", exp)));
  ASSERT_TRUE(eventually(home, [&] { return home.sessions().connected_count() == 1; }));
  EXPECT_EQ(reader.run([&] { return reader.sessions().session_count(); }), 0u);
  EXPECT_EQ(home.claims.load(), 1);  // the Redis claim is made by the session's loop
  EXPECT_EQ(reader.claims.load(), 0);

  const auto m = publish(home, 9);
  beast::flat_buffer buffer;
  EXPECT_EQ(read_response(c, buffer).body(), m->poll_body);
}

// A client token's `exp` is read on the loop's wall clock, simulated here with the steady one: a
// held poll whose token expires 2 s from the simulated now is answered close/expired at that
// time (at most a tick later), not before and not at its 3 s poll timeout.
TEST(Admission, ATokensExpiryRunsOnTheLoopsSimulatedWallClock) {
  test::test_loop loop(short_timeouts());
  loop.set_tokens(std::make_shared<const token_verifier>(
      std::move(*token_verifier::with_secret("right", false).value)));
  const auto exp = loop.run([&] { return loop.timers().unix_ms(); }) / 1000 + 2;
  auto c = loop.connect();
  send(c, get("/poll?token=" + mint_hs256("right", "alice", exp)));
  ASSERT_TRUE(eventually(loop, [&] { return loop.sessions().connected_count() == 1; }));
  loop.advance(2s - 10ms);
  EXPECT_EQ(loop.run([&] { return loop.stats().expired; }), 0u);
  loop.advance(20ms);
  beast::flat_buffer buffer;
  const auto res = read_response(c, buffer);
  EXPECT_NE(res.body().find(R"("reason":"expired")"), std::string::npos) << res.body();
  EXPECT_EQ(loop.run([&] { return loop.stats().expired; }), 1u);
  EXPECT_EQ(loop.run([&] { return loop.stats().poll_timeout; }), 0u);
}

TEST(Admission, RefusedOnTheReadingLoop) {
  test::test_loop loop(short_timeouts());
  auto c = loop.connect();
  beast::flat_buffer buffer;
  send(c, get("/ws?user=u"));  // no upgrade
  EXPECT_EQ(read_response(c, buffer).result(), http::status::upgrade_required);
  send(c, get("/poll?user=bad/name"));
  EXPECT_EQ(read_response(c, buffer).result(), http::status::bad_request);
  loop.set_draining(true);
  send(c, get("/poll?user=u"));
  auto res = read_response(c, buffer);
  EXPECT_EQ(res.result(), http::status::service_unavailable);
  EXPECT_FALSE(res.keep_alive());
  EXPECT_EQ(loop.run([&] { return loop.sessions().session_count(); }), 0u);
}

// ---- Origin first, CORS for /sse and /poll, Host (issues 35 and 36) --------------------------

constexpr std::string_view shop = "https://www.shop.example";

config with_origins(std::string_view list) {
  auto cfg = short_timeouts();
  cfg.allowed_origins = *parse_allowed_origins(list).value;
  cfg.allowed_origins_text = list;
  return cfg;
}

// A request with an Origin (and more header lines, each ending in CRLF) to the test's Host.
std::string from_page(std::string_view method, std::string_view target, std::string_view origin,
                      std::string_view more = {}) {
  return std::string(method) + " " + std::string(target) +
         " HTTP/1.1\r\nHost: test\r\nOrigin: " + std::string(origin) + "\r\n" + std::string(more) +
         "\r\n";
}

TEST(OriginFirst, AForeignPageIs403BeforeTheMethodTheQueryTheAddressLimitsAndTheDrain) {
  test::test_loop loop(with_origins(shop));
  // The connect rate: the per-address limit a request meets (the connection count closes a
  // connection at accept, before it has an Origin).
  loop.client_addresses().configure({.max_connections = 0, .connect_rate = 1});
  auto first = loop.connect();
  send(first, get("/sse?user=a"));  // the address's one connect this second
  ASSERT_NE(test::read_until(first.native_handle(), "hello").find("hello"), std::string::npos);
  auto c = loop.connect();
  beast::flat_buffer buffer;
  // A listed page meets the per-address limit...
  send(c, from_page("GET", "/poll?user=b", shop));
  EXPECT_EQ(read_response(c, buffer).result(), http::status::too_many_requests);
  // ... a foreign one its Origin, whatever else is wrong with it.
  for (const std::string_view req : {"GET /poll?user=b", "GET /sse", "POST /ws?user=b",
                                     "DELETE /poll?user=bad/name", "GET /ws?user=b"}) {
    const auto space = req.find(' ');
    send(c, from_page(req.substr(0, space), req.substr(space + 1), "https://evil.example"));
    const auto res = read_response(c, buffer);
    EXPECT_EQ(res.result(), http::status::forbidden) << req;
    EXPECT_NE(res.body().find(R"("error":"origin")"), std::string::npos) << req << res.body();
  }
  loop.set_draining(true);
  auto late = loop.connect();
  send(late, from_page("GET", "/sse?user=c", "https://evil.example"));
  EXPECT_EQ(read_response(late, buffer).result(), http::status::forbidden);
  EXPECT_EQ(loop.run([&] { return loop.stats().refused_origin; }), 6u);
  EXPECT_EQ(loop.run([&] { return loop.sessions().session_count(); }), 1u);
}

TEST(CrossOrigin, SseAndPollRepliesCarryTheGrantForAListedPage) {
  auto cfg = with_origins(shop);
  cfg.max_sessions_per_user = 1;
  test::test_loop loop(cfg);
  auto sse = loop.connect();
  send(sse, from_page("GET", "/sse?user=s", shop));
  const std::string head = test::read_until(sse.native_handle(), "hello");
  EXPECT_NE(head.find("\r\nAccess-Control-Allow-Origin: https://www.shop.example\r\n"),
            std::string::npos)
      << head;
  EXPECT_NE(head.find("\r\nAccess-Control-Allow-Credentials: true\r\n"), std::string::npos);
  EXPECT_NE(head.find("\r\nVary: Origin\r\n"), std::string::npos);

  auto poll = loop.connect();
  send(poll, from_page("GET", "/poll?user=p", shop));
  ASSERT_TRUE(eventually(loop, [&] { return loop.sessions().connected_count() == 2; }));
  publish(loop, 7);
  beast::flat_buffer buffer;
  auto res = read_response(poll, buffer);
  EXPECT_EQ(res.result(), http::status::ok);
  EXPECT_EQ(res[http::field::access_control_allow_origin], shop);
  EXPECT_EQ(res[http::field::access_control_allow_credentials], "true");
  EXPECT_EQ(res[http::field::vary], "Origin");
  // Refusals too, so that the page can read why: a bad query here, a full user on its loop.
  send(poll, from_page("GET", "/poll?user=bad/name", shop));
  res = read_response(poll, buffer);
  EXPECT_EQ(res.result(), http::status::bad_request);
  EXPECT_EQ(res[http::field::access_control_allow_origin], shop);
  send(poll, from_page("GET", "/poll?user=s&sid=other", shop));
  res = read_response(poll, buffer);
  EXPECT_EQ(res.result(), http::status::too_many_requests);
  EXPECT_EQ(res[http::field::access_control_allow_origin], shop);
  // The server's own pages need no grant; the next request on the connection gets none of the
  // last one's.
  send(poll, "GET /poll?user=bad/name HTTP/1.1\r\nHost: test\r\nOrigin: http://test\r\n\r\n");
  res = read_response(poll, buffer);
  EXPECT_EQ(res.count(http::field::access_control_allow_origin), 0u);
  EXPECT_EQ(res[http::field::vary], "Origin");
  send(poll, get("/healthz"));
  res = read_response(poll, buffer);
  EXPECT_EQ(res.count(http::field::access_control_allow_origin), 0u);
  EXPECT_EQ(res.count(http::field::vary), 0u);
}

TEST(CrossOrigin, APageOnlyStarAdmitsGetsNoCredentials) {
  test::test_loop loop(with_origins("*"));
  auto c = loop.connect();
  send(c, from_page("GET", "/poll?user=bad/name", "https://anyone.example"));
  beast::flat_buffer buffer;
  const auto res = read_response(c, buffer);
  EXPECT_EQ(res[http::field::access_control_allow_origin], "*");
  EXPECT_EQ(res.count(http::field::access_control_allow_credentials), 0u);
}

TEST(CrossOrigin, APreflightIsAnsweredForAListedPageOnlyAndTheAdminApiHasNone) {
  test::test_loop loop(with_origins(shop));
  auto c = loop.connect();
  beast::flat_buffer buffer;
  const std::string_view asks =
      "Access-Control-Request-Method: GET\r\n"
      "Access-Control-Request-Headers: authorization, last-event-id\r\n";
  for (const std::string_view path : {"/poll?user=u", "/sse?user=u"}) {
    send(c, from_page("OPTIONS", path, shop, asks));
    const auto res = read_response(c, buffer);
    EXPECT_EQ(res.result(), http::status::no_content) << path;
    EXPECT_EQ(res[http::field::access_control_allow_origin], shop);
    EXPECT_EQ(res[http::field::access_control_allow_credentials], "true");
    EXPECT_EQ(res[http::field::access_control_allow_headers], "Authorization, Last-Event-ID");
    EXPECT_TRUE(res.keep_alive());
  }
  send(c, from_page("OPTIONS", "/poll?user=u", "https://evil.example", asks));
  EXPECT_EQ(read_response(c, buffer).result(), http::status::forbidden);
  // Not a preflight (no Access-Control-Request-Method), and /ws (never preflighted): 405.
  send(c, from_page("OPTIONS", "/poll?user=u", shop));
  EXPECT_EQ(read_response(c, buffer).result(), http::status::method_not_allowed);
  send(c, from_page("OPTIONS", "/ws?user=u", shop, asks));
  EXPECT_EQ(read_response(c, buffer).result(), http::status::method_not_allowed);
  // The admin API stays same-origin: no grant to a listed page, no preflight answered.
  send(c, from_page("GET", "/metrics", shop));
  auto res = read_response(c, buffer);
  EXPECT_EQ(res.count(http::field::access_control_allow_origin), 0u);
  send(c, from_page("OPTIONS", "/metrics", shop, asks));
  res = read_response(c, buffer);
  EXPECT_EQ(res.result(), http::status::method_not_allowed);
  EXPECT_EQ(res.count(http::field::access_control_allow_origin), 0u);
  EXPECT_EQ(loop.run([&] { return loop.sessions().session_count(); }), 0u);
}

TEST(OwnOrigin, ASchemeOtherThanTheServersIsForeignUnlessATrustedProxySaysSo) {
  const std::string tls_page =
      "GET /poll?user=u HTTP/1.1\r\nHost: test\r\nOrigin: https://test\r\n"
      "X-Forwarded-Proto: https\r\n\r\n";
  {
    test::test_loop loop(short_timeouts());  // no --trusted-proxy: the header is anybody's
    auto c = loop.connect();
    send(c, tls_page);
    beast::flat_buffer buffer;
    EXPECT_EQ(read_response(c, buffer).result(), http::status::forbidden);
  }
  auto cfg = short_timeouts();
  cfg.trusted_proxies = *parse_address_ranges("127.0.0.1").value;
  test::test_loop loop(cfg);
  auto c = loop.connect();
  send(c, tls_page);
  EXPECT_TRUE(eventually(loop, [&] { return loop.sessions().connected_count() == 1; }));
  auto plain = loop.connect();
  send(plain, "GET /poll?user=v HTTP/1.1\r\nHost: test\r\nOrigin: https://test\r\n\r\n");
  beast::flat_buffer buffer;
  EXPECT_EQ(read_response(plain, buffer).result(), http::status::forbidden);
}

TEST(HttpConnection, TwoHostHeadersAre400AndTheConnectionCloses) {
  test::test_loop loop(short_timeouts());
  auto c = loop.connect();
  send(c, "GET /healthz HTTP/1.1\r\nHost: test\r\nHost: other\r\n\r\n");
  beast::flat_buffer buffer;
  const auto res = read_response(c, buffer);
  EXPECT_EQ(res.result(), http::status::bad_request);
  EXPECT_NE(res.body().find("more than one Host header"), std::string::npos) << res.body();
  EXPECT_FALSE(res.keep_alive());
  auto sse = loop.connect();
  send(sse, "GET /sse?user=u HTTP/1.1\r\nHost: test\r\nHost: test\r\n\r\n");
  EXPECT_EQ(read_response(sse, buffer).result(), http::status::bad_request);
  EXPECT_EQ(loop.run([&] { return loop.sessions().session_count(); }), 0u);
}

}  // namespace
}  // namespace ringcast
