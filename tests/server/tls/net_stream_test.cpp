// net_stream over real loopback sockets: TLS handshakes both ways, data larger than a TLS record,
// a hand-off to another io_context in the middle of a TLS stream, plaintext on a TLS port,
// the readable-state probe of held long-polls, WebSocket over TLS with Beast, and the
// non-blocking read_now / write_now (would_block, then resume) plain and TLS.
#include "tls/net_stream.hpp"

#include "test_certificate.hpp"

#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

namespace ringcast {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using error_code = boost::system::error_code;

class NetStreamTest : public testing::Test {
 protected:
  void SetUp() override {
    auto server = tls_context::for_server(cert.cert_file, cert.key_file);
    ASSERT_TRUE(server) << server.error;
    server_tls.emplace(std::move(*server.value));
    auto client = tls_context::for_client(cert.cert_file);
    ASSERT_TRUE(client) << client.error;
    client_tls.emplace(std::move(*client.value));
  }

  // A connected pair of loopback sockets on `io` (server side first).
  std::pair<stream_socket, stream_socket> connected_pair() {
    tcp::acceptor acceptor(io, {asio::ip::make_address("127.0.0.1"), 0});
    stream_socket client(io);
    client.connect(acceptor.local_endpoint());
    return {acceptor.accept(io), std::move(client)};
  }

  // TLS streams on both ends of a fresh connection, handshakes done.
  std::pair<net_stream, net_stream> tls_pair() {
    auto [s, c] = connected_pair();
    const int server_fd = s.native_handle(), client_fd = c.native_handle();
    net_stream server(std::move(s), server_tls->new_session(server_fd));
    net_stream client(std::move(c), client_tls->new_session(client_fd, "127.0.0.1"));
    std::optional<error_code> server_ec, client_ec;
    server.async_handshake([&](error_code ec) { server_ec = ec; });
    client.async_handshake([&](error_code ec) { client_ec = ec; });
    run_until([&] { return server_ec && client_ec; });
    EXPECT_FALSE(*server_ec) << server_ec->message();
    EXPECT_FALSE(*client_ec) << client_ec->message();
    return {std::move(server), std::move(client)};
  }

  std::pair<net_stream, net_stream> stream_pair(bool tls) {
    if (tls) return tls_pair();
    auto [s, c] = connected_pair();
    return {net_stream(std::move(s)), net_stream(std::move(c))};
  }

  // read_now, waiting for readiness whenever it would block, until it fails with another error
  // (eof at the end of the stream); data read meanwhile is an error.
  error_code read_until_error(net_stream& s) {
    char buffer[64];
    for (;;) {
      error_code ec;
      const std::size_t n = s.read_now(asio::buffer(buffer), ec);
      EXPECT_EQ(n, 0u);
      if (ec != asio::error::would_block) return ec;
      bool ready = false;
      s.async_wait_readable([&](error_code) { ready = true; });
      run_until([&] { return ready; });
      if (!ready) return asio::error::timed_out;
    }
  }

  template <class Done>
  void run_until(Done done, asio::io_context& ctx) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done() && std::chrono::steady_clock::now() < give_up) {
      ctx.restart();
      ctx.run_for(std::chrono::milliseconds(20));
    }
    ASSERT_TRUE(done()) << "timed out";
  }
  template <class Done>
  void run_until(Done done) {
    run_until(done, io);
  }

  // Runs `io` and `other` in turns (one thread plays both event loops) until `done()`.
  template <class Done>
  void run_both_until(Done done, asio::io_context& other) {
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done() && std::chrono::steady_clock::now() < give_up) {
      for (asio::io_context* ctx : {&io, &other}) {
        ctx->restart();
        ctx->run_for(std::chrono::milliseconds(5));
      }
    }
    ASSERT_TRUE(done()) << "timed out";
  }

  // Writes `text` from `from` and reads exactly as much at `to`.
  std::string transfer(net_stream& from, net_stream& to, const std::string& text,
                       asio::io_context& ctx) {
    std::string received(text.size(), '\0');
    std::optional<error_code> wrote, read;
    asio::async_write(from, asio::buffer(text), [&](error_code ec, std::size_t) { wrote = ec; });
    asio::async_read(to, asio::buffer(received), [&](error_code ec, std::size_t) { read = ec; });
    run_until([&] { return wrote && read; }, ctx);
    EXPECT_FALSE(*wrote) << wrote->message();
    EXPECT_FALSE(*read) << read->message();
    return received;
  }

  static std::string pattern(std::size_t n) {
    std::string s(n, '\0');
    for (std::size_t i = 0; i < n; ++i)
      s[i] = static_cast<char>('a' + (i * 7 + i / 13) % 26);
    return s;
  }

  certificate cert;
  std::optional<tls_context> server_tls, client_tls;
  asio::io_context io;
};

TEST_F(NetStreamTest, TlsCarriesDataLargerThanARecordBothWays) {
  auto [server, client] = tls_pair();
  EXPECT_TRUE(server.secure());
  const std::string big = pattern(200 * 1024);
  EXPECT_EQ(transfer(client, server, big, io), big);
  EXPECT_EQ(transfer(server, client, big, io), big);
}

// After a TLS 1.3 handshake the server's SSL object is freed and ringcast's record layer carries
// the records (about 14 KB less per idle connection); the client, and TLS 1.2, keep OpenSSL's.
TEST_F(NetStreamTest, ATls13ServerLeavesOpenSslAfterItsHandshakeAndTls12DoesNot) {
  {
    auto [server, client] = tls_pair();
    EXPECT_TRUE(server.own_records());
    EXPECT_TRUE(server.secure());
    EXPECT_FALSE(client.own_records());
    EXPECT_EQ(transfer(client, server, "over records", io), "over records");
  }
  auto [s, c] = connected_pair();
  const int server_fd = s.native_handle(), client_fd = c.native_handle();
  tls_session client_session = client_tls->new_session(client_fd, "127.0.0.1");
  SSL_set_max_proto_version(client_session.get(), TLS1_2_VERSION);
  net_stream server(std::move(s), server_tls->new_session(server_fd));
  net_stream client(std::move(c), std::move(client_session));
  std::optional<error_code> server_ec, client_ec;
  server.async_handshake([&](error_code ec) { server_ec = ec; });
  client.async_handshake([&](error_code ec) { client_ec = ec; });
  run_until([&] { return server_ec && client_ec; });
  ASSERT_FALSE(*server_ec) << server_ec->message();
  EXPECT_FALSE(server.own_records());
  EXPECT_TRUE(server.secure());
  EXPECT_EQ(transfer(server, client, "over OpenSSL", io), "over OpenSSL");
}

// Several buffers go out as one record of at most 16 KiB at a time, whatever their sizes.
TEST_F(NetStreamTest, GatheredBuffersArriveInOrder) {
  auto [server, client] = tls_pair();
  const std::vector<std::vector<std::string>> cases{
      {"head:", pattern(20 * 1024), ":tail"},  // a small first part
      {pattern(40 * 1024), "tail"},            // a first part over a record
      {"a", "b", "", "c"},                     // an empty part among them
  };
  for (const auto& texts : cases) {
    std::vector<asio::const_buffer> parts;
    std::string whole;
    for (const auto& t : texts) {
      parts.push_back(asio::buffer(t));
      whole += t;
    }
    std::string received(whole.size(), '\0');
    std::optional<error_code> wrote, read;
    asio::async_write(server, parts, [&](error_code ec, std::size_t) { wrote = ec; });
    asio::async_read(client, asio::buffer(received),
                     [&](error_code ec, std::size_t) { read = ec; });
    run_until([&] { return wrote && read; });
    EXPECT_FALSE(*wrote);
    EXPECT_EQ(received, whole);
  }
}

// The server hands each connection to its session's loop after the request was read: the TLS
// session must go on in the other io_context as if nothing happened.
TEST_F(NetStreamTest, TlsSurvivesAHandOffToAnotherIoContext) {
  auto [server, client] = tls_pair();
  EXPECT_EQ(transfer(client, server, "before", io), "before");
  error_code ec;
  auto detached = server.detach(client.socket().local_endpoint().address(), ec);
  ASSERT_FALSE(ec) << ec.message();
  // Bytes the client sends while the connection is in flight are waiting in the kernel.
  std::optional<error_code> sent;
  const std::string in_flight = pattern(40 * 1024);
  asio::async_write(client, asio::buffer(in_flight), [&](error_code e, std::size_t) { sent = e; });
  io.restart();
  io.run_for(std::chrono::milliseconds(50));

  asio::io_context home;
  auto adopted = net_stream::adopt(home, std::move(detached));
  ASSERT_TRUE(adopted);
  EXPECT_TRUE(adopted->secure());
  std::string received(in_flight.size(), '\0');
  std::optional<error_code> read;
  asio::async_read(*adopted, asio::buffer(received), [&](error_code e, std::size_t) { read = e; });
  // The client's write may still need the server to read (a full socket buffer): run both.
  run_both_until([&] { return sent && read; }, home);
  EXPECT_EQ(received, in_flight);
  const std::string reply = pattern(30 * 1024);
  std::string back(reply.size(), '\0');
  std::optional<error_code> wrote, got;
  asio::async_write(*adopted, asio::buffer(reply), [&](error_code e, std::size_t) { wrote = e; });
  asio::async_read(client, asio::buffer(back), [&](error_code e, std::size_t) { got = e; });
  run_both_until([&] { return wrote && got; }, home);
  EXPECT_FALSE(*got) << got->message();
  EXPECT_EQ(back, reply);
}

// A hand-off between the loops of one process carries what is known of the socket: its family
// (the peer's) and that it is non-blocking, so the new loop does not ask getsockname() or set
// O_NONBLOCK again (ioctl). A peer left unspecified has its family asked of the kernel.
TEST_F(NetStreamTest, AHandOffCarriesTheFamilyAndTheNonBlockingMode) {
  for (const char* host : {"127.0.0.1", "::1"}) {
    const auto loopback = asio::ip::make_address(host);
    const tcp family = loopback.is_v6() ? tcp::v6() : tcp::v4();
    tcp::acceptor acceptor(io, {loopback, 0});
    stream_socket client(io);
    client.connect(acceptor.local_endpoint());
    stream_socket accepted = acceptor.accept(io);
    accepted.non_blocking(true);
    net_stream server(std::move(accepted));
    error_code ec;
    auto detached = server.detach(client.local_endpoint().address(), ec);
    ASSERT_FALSE(ec) << ec.message();
    EXPECT_EQ(detached.protocol, family) << host;
    EXPECT_TRUE(detached.non_blocking) << host;

    asio::io_context home;
    auto adopted = net_stream::adopt(home, std::move(detached));
    ASSERT_TRUE(adopted);
    EXPECT_TRUE(adopted->socket().non_blocking()) << host;  // asio knows it, unasked
    EXPECT_NE(::fcntl(adopted->socket().native_handle(), F_GETFL) & O_NONBLOCK, 0) << host;
    char buffer[8];
    EXPECT_EQ(adopted->read_now(asio::buffer(buffer), ec), 0u);
    EXPECT_EQ(ec, asio::error::would_block) << host;

    auto again = adopted->detach(asio::ip::address{}, ec);
    ASSERT_FALSE(ec) << ec.message();
    EXPECT_EQ(again.protocol, family) << host;
    EXPECT_TRUE(net_stream::adopt(home, std::move(again)));
  }
}

TEST_F(NetStreamTest, PlaintextHttpOnATlsPortIsRecognizedAndLeftUnread) {
  auto [s, c] = connected_pair();
  const int fd = s.native_handle();
  net_stream server(std::move(s), server_tls->new_session(fd));
  const std::string request = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
  asio::write(c, asio::buffer(request));
  std::optional<error_code> result;
  server.async_handshake([&](error_code ec) { result = ec; });
  run_until([&] { return result.has_value(); });
  EXPECT_EQ(*result, make_error_code(tls_errc::plain_http));
  // Nothing was consumed: the server can still read the request and answer in plain HTTP.
  std::string unread(request.size(), '\0');
  asio::read(server.socket(), asio::buffer(unread));
  EXPECT_EQ(unread, request);
}

TEST_F(NetStreamTest, AByteThatCannotStartAHandshakeIsRefused) {
  auto [s, c] = connected_pair();
  const int fd = s.native_handle();
  net_stream server(std::move(s), server_tls->new_session(fd));
  asio::write(c, asio::buffer(std::string("\x01\x02", 2)));
  std::optional<error_code> result;
  server.async_handshake([&](error_code ec) { result = ec; });
  run_until([&] { return result.has_value(); });
  EXPECT_EQ(*result, make_error_code(tls_errc::not_tls));
}

TEST_F(NetStreamTest, AClientThatDoesNotTrustTheCertificateFailsTheHandshake) {
  certificate other;
  auto strict = tls_context::for_client(other.cert_file);
  ASSERT_TRUE(strict);
  auto [s, c] = connected_pair();
  const int server_fd = s.native_handle(), client_fd = c.native_handle();
  net_stream server(std::move(s), server_tls->new_session(server_fd));
  net_stream client(std::move(c), strict.value->new_session(client_fd, "127.0.0.1"));
  std::optional<error_code> server_ec, client_ec;
  server.async_handshake([&](error_code ec) { server_ec = ec; });
  client.async_handshake([&](error_code ec) { client_ec = ec; });
  run_until([&] { return server_ec && client_ec; });
  ASSERT_TRUE(*client_ec);
  EXPECT_EQ(&client_ec->category(), &tls_category());
  EXPECT_NE(client_ec->message().find("certificate"), std::string::npos) << client_ec->message();
  EXPECT_TRUE(*server_ec);
}

// What the hang-up watch of a held long-poll sees once the socket is readable.
TEST_F(NetStreamTest, ProbeTellsDataFromHangUp) {
  {
    auto [server, client] = tls_pair();
    const std::string x = "x";
    asio::async_write(client, asio::buffer(x), [](error_code, std::size_t) {});
    std::optional<error_code> readable;
    server.socket().async_wait(tcp::socket::wait_read, [&](error_code ec) { readable = ec; });
    run_until([&] { return readable.has_value(); });
    EXPECT_EQ(server.probe_readable(), net_stream::readable_state::data);
  }
  for (const bool notify : {true, false}) {
    auto [server, client] = tls_pair();
    if (notify) {
      client.close();  // close_notify, then FIN
    } else {
      client.socket().close();  // a bare FIN
    }
    std::optional<error_code> readable;
    server.socket().async_wait(tcp::socket::wait_read, [&](error_code ec) { readable = ec; });
    run_until([&] { return readable.has_value(); });
    EXPECT_EQ(server.probe_readable(), net_stream::readable_state::closed) << notify;
  }
  {
    // A stale readiness report (nothing to read, peer still there) is not a hang-up.
    auto [s, c] = connected_pair();
    net_stream server(std::move(s));
    EXPECT_EQ(server.probe_readable(), net_stream::readable_state::nothing);
    c.close();
    std::optional<error_code> readable;
    server.socket().async_wait(tcp::socket::wait_read, [&](error_code ec) { readable = ec; });
    run_until([&] { return readable.has_value(); });
    EXPECT_EQ(server.probe_readable(), net_stream::readable_state::closed);
  }
}

TEST_F(NetStreamTest, BeastWebSocketRunsOverTlsAndClosesCleanly) {
  auto [server_stream, client_stream] = tls_pair();
  namespace websocket = boost::beast::websocket;
  websocket::stream<net_stream> server(std::move(server_stream));
  websocket::stream<net_stream> client(std::move(client_stream));
  std::optional<error_code> accepted, handshaken;
  server.async_accept([&](error_code ec) { accepted = ec; });
  client.async_handshake("127.0.0.1", "/ws", [&](error_code ec) { handshaken = ec; });
  run_until([&] { return accepted && handshaken; });
  ASSERT_FALSE(*accepted) << accepted->message();
  ASSERT_FALSE(*handshaken) << handshaken->message();

  const std::string text = pattern(50 * 1024);
  boost::beast::flat_buffer in;
  std::optional<error_code> wrote, read;
  server.async_write(asio::buffer(text), [&](error_code ec, std::size_t) { wrote = ec; });
  client.async_read(in, [&](error_code ec, std::size_t) { read = ec; });
  run_until([&] { return wrote && read; });
  ASSERT_FALSE(*read) << read->message();
  EXPECT_EQ(boost::beast::buffers_to_string(in.data()), text);

  // The server closes; the client's pending read sees the close frame and answers it.
  std::optional<error_code> closed, client_read;
  boost::beast::flat_buffer ignored;
  client.async_read(ignored, [&](error_code ec, std::size_t) { client_read = ec; });
  server.async_close(websocket::close_code::normal, [&](error_code ec) { closed = ec; });
  run_until([&] { return closed && client_read; });
  EXPECT_FALSE(*closed) << closed->message();
  EXPECT_EQ(*client_read, websocket::error::closed);
}

// ---- read_now / write_now: no operation pending, no buffer held while waiting ----

// What read_now gives before it would block (never waits).
std::string read_available(net_stream& s) {
  std::string got;
  char chunk[4096];
  for (;;) {
    error_code ec;
    const std::size_t n = s.read_now(asio::buffer(chunk), ec);
    if (ec) {
      EXPECT_EQ(ec, asio::error::would_block) << ec.message();
      return got;
    }
    got.append(chunk, n);
  }
}

// Reads with read_now, waiting with async_wait_readable between tries, until `size` bytes came.
std::string read_all_now(net_stream& s, std::size_t size, asio::io_context& io) {
  std::string got;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (got.size() < size && std::chrono::steady_clock::now() < give_up) {
    got += read_available(s);
    if (got.size() >= size) break;
    bool ready = false;
    s.async_wait_readable([&](error_code) { ready = true; });
    io.restart();
    while (!ready)
      io.run_for(std::chrono::milliseconds(10));
  }
  return got;
}

// A stream of "head:" + body messages, each written as two buffers. The peer does not read:
// write_now takes what the socket buffers, then says would_block; once the peer reads, writing
// goes on from the byte where it stopped, and the peer gets every byte in order.
void fill_then_resume(net_stream& writer, net_stream& reader, asio::io_context& io,
                      const std::string& body) {
  const std::string head = "head:";
  const std::size_t message = head.size() + body.size();
  std::size_t written = 0;
  const auto rest = [&] {  // the current message from byte `written` on
    std::array<asio::const_buffer, 2> parts{asio::buffer(head), asio::buffer(body)};
    std::size_t skip = written % message;
    for (auto& b : parts) {
      const std::size_t cut = std::min(skip, b.size());
      b += cut;
      skip -= cut;
    }
    return parts;
  };
  error_code ec;
  bool partial = false;
  for (;;) {
    const auto parts = rest();
    const std::size_t n = writer.write_now(parts, ec);
    if (ec) break;
    partial = partial || n < asio::buffer_size(parts);
    written += n;
    ASSERT_LT(written, std::size_t{1} << 30) << "the peer's socket never filled";
  }
  ASSERT_EQ(ec, asio::error::would_block) << ec.message();
  EXPECT_TRUE(partial);

  const std::size_t total = (written / message + 1) * message;  // the message cut short, whole
  std::string received;
  bool waiting = false, writable = false;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (written < total && std::chrono::steady_clock::now() < give_up) {
    received += read_available(reader);
    if (!waiting) {
      waiting = true;
      writer.async_wait_writable([&](error_code e) {
        waiting = false;
        writable = !e;
      });
    }
    io.restart();
    io.run_for(std::chrono::milliseconds(5));
    if (!writable) continue;
    writable = false;
    const std::size_t n = writer.write_now(rest(), ec);
    ASSERT_TRUE(!ec || ec == asio::error::would_block) << ec.message();
    if (!ec) written += n;
  }
  ASSERT_EQ(written, total);
  while (waiting)  // the wait refers to locals: let it finish
    io.run_for(std::chrono::milliseconds(5));
  received += read_all_now(reader, total - received.size(), io);
  ASSERT_EQ(received.size(), total);
  for (std::size_t at = 0; at < total; at += message)
    ASSERT_EQ(received.compare(at, message, head + body), 0) << "message at " << at;
}

TEST_F(NetStreamTest, ReadNowSaysWouldBlockThenReadsWhatCame) {
  for (const bool tls : {false, true}) {
    auto [server, client] = stream_pair(tls);
    char buffer[64];
    error_code ec;
    EXPECT_EQ(server.read_now(asio::buffer(buffer), ec), 0u);
    EXPECT_EQ(ec, asio::error::would_block) << tls;
    const std::string hello = "hello";
    EXPECT_EQ(client.write_now(asio::buffer(hello), ec), hello.size());
    EXPECT_FALSE(ec) << ec.message();
    EXPECT_EQ(read_all_now(server, hello.size(), io), hello) << tls;
    // The peer leaves: end of stream (TLS: close_notify, then the FIN).
    client.close();
    EXPECT_EQ(read_until_error(server), asio::error::eof) << tls;
  }
}

TEST_F(NetStreamTest, WriteNowStopsWhenThePeerDoesNotReadAndResumes) {
  for (const bool tls : {false, true}) {
    auto [server, client] = stream_pair(tls);
    fill_then_resume(server, client, io, pattern(64 * 1024));
  }
}

// A frame's header and payload go as one TLS record, not one record each.
TEST_F(NetStreamTest, WriteNowGathersBuffersIntoOneTlsRecord) {
  auto [s, c] = connected_pair();
  s.set_option(tcp::no_delay(true));  // no record held back behind an unacknowledged one
  const int server_fd = s.native_handle(), client_fd = c.native_handle();
  net_stream server(std::move(s), server_tls->new_session(server_fd));
  net_stream client(std::move(c), client_tls->new_session(client_fd, "127.0.0.1"));
  std::optional<error_code> server_ec, client_ec;
  server.async_handshake([&](error_code ec) { server_ec = ec; });
  client.async_handshake([&](error_code ec) { client_ec = ec; });
  run_until([&] { return server_ec && client_ec; });
  // The lengths of the TLS records that reach the client, read raw. Session tickets may come
  // first, at any time: only the last record is the one just written.
  const auto last_record_length = [&] {
    std::string raw;
    char chunk[4096];
    for (int quiet = 0; quiet < 5;) {
      const ssize_t n = ::recv(client_fd, chunk, sizeof chunk, MSG_DONTWAIT);
      if (n > 0) {
        raw.append(chunk, n);
        quiet = 0;
        continue;
      }
      ++quiet;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    std::size_t at = 0, length = 0;
    while (at + 5 <= raw.size()) {  // type, version (2), length (2), then that many bytes
      length =
          static_cast<unsigned char>(raw[at + 3]) << 8 | static_cast<unsigned char>(raw[at + 4]);
      at += 5 + length;
    }
    EXPECT_EQ(at, raw.size()) << "whole records";
    return length;
  };
  const std::string header = "\x81\x64", payload = pattern(100);
  error_code ec;
  // OpenSSL may send the session tickets with the first write: get them out of the way.
  const std::string warm_up = "warm-up";
  EXPECT_EQ(server.write_now(asio::buffer(warm_up), ec), warm_up.size());
  last_record_length();
  // The same bytes as one buffer: the length of a record that carries them all.
  const std::string whole = header + payload;
  EXPECT_EQ(server.write_now(asio::buffer(whole), ec), whole.size());
  ASSERT_FALSE(ec) << ec.message();
  const std::size_t one_record = last_record_length();
  // As three buffers (one empty): the same record, not a header record and a payload record.
  const std::array<asio::const_buffer, 3> parts{asio::buffer(header), asio::const_buffer(),
                                                asio::buffer(payload)};
  EXPECT_EQ(server.write_now(parts, ec), whole.size());
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(last_record_length(), one_record);
}

TEST_F(NetStreamTest, ShutdownSendEndsOurSideAndKeepsReading) {
  for (const bool tls : {false, true}) {
    auto [server, client] = stream_pair(tls);
    server.shutdown_send();
    EXPECT_EQ(read_until_error(client), asio::error::eof) << tls;
    // The other direction still works.
    const std::string late = "late";
    error_code ec;
    EXPECT_EQ(client.write_now(asio::buffer(late), ec), late.size()) << tls;
    EXPECT_EQ(read_all_now(server, late.size(), io), late) << tls;
  }
}

}  // namespace
}  // namespace ringcast
