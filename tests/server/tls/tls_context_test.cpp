// What each server connection's TLS state (an SSL made by tls_context) is set to hold, and what
// it holds once idle: no read or write buffer (SSL_MODE_RELEASE_BUFFERS), no session cache or
// tickets, TLS 1.3 allowed. docs/performance.md, "TLS: what an idle connection holds".
#include "tls/tls_context.hpp"

#include <malloc.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string_view>

#include "../glibc_heap.hpp"
#include "test_certificate.hpp"

namespace ringcast {
namespace {

class TlsContextTest : public testing::Test {
 protected:
  void SetUp() override {
    auto server = tls_context::for_server(cert.cert_file, cert.key_file);
    ASSERT_TRUE(server) << server.error;
    server_tls.emplace(std::move(*server.value));
    auto client = tls_context::for_client(cert.cert_file);
    ASSERT_TRUE(client) << client.error;
    client_tls.emplace(std::move(*client.value));
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0, fds), 0);
  }
  void TearDown() override {
    ::close(fds[0]);
    ::close(fds[1]);
  }

  // Both handshakes, then one server record read by the client, then the server's read that
  // finds nothing: an idle connection, as ringcast leaves one after its hello.
  void handshake_and_idle(ssl_st* server, ssl_st* client) {
    bool server_done = false, client_done = false;
    for (int round = 0; round < 100 && !(server_done && client_done); ++round) {
      if (!client_done) client_done = SSL_do_handshake(client) == 1;
      if (!server_done) server_done = SSL_do_handshake(server) == 1;
    }
    ASSERT_TRUE(server_done && client_done) << "handshake did not finish";
    constexpr std::string_view hello = R"({"type":"hello","session":"u/s"})";
    std::size_t n = 0;
    ASSERT_EQ(SSL_write_ex(server, hello.data(), hello.size(), &n), 1);
    char buffer[128];
    ASSERT_EQ(SSL_read_ex(client, buffer, sizeof buffer, &n), 1);
    EXPECT_EQ(std::string_view(buffer, n), hello);
    const int idle = SSL_read_ex(server, buffer, sizeof buffer, &n);
    ASSERT_EQ(SSL_get_error(server, idle), SSL_ERROR_WANT_READ);
  }

  certificate cert;
  std::optional<tls_context> server_tls, client_tls;
  int fds[2] = {-1, -1};
};

TEST_F(TlsContextTest, ServerSessionsReleaseBuffersKeepNoSessionsAndAllowTls13) {
  const tls_session ssl = server_tls->new_session(fds[0]);
  ASSERT_TRUE(ssl);
  EXPECT_TRUE(SSL_get_mode(ssl.get()) & SSL_MODE_RELEASE_BUFFERS);
  EXPECT_TRUE(SSL_get_options(ssl.get()) & SSL_OP_NO_TICKET);
  EXPECT_EQ(SSL_get_num_tickets(ssl.get()), 0u);
  EXPECT_EQ(SSL_CTX_get_session_cache_mode(SSL_get_SSL_CTX(ssl.get())), SSL_SESS_CACHE_OFF);
  const long highest = SSL_get_max_proto_version(ssl.get());
  EXPECT_TRUE(highest == 0 || highest >= TLS1_3_VERSION) << highest;
}

// What the heap holds for one idle server session, counted by glibc (mallinfo2): about 14 KB
// with the buffers released, about 47 KB when they are kept (16.7 KB read and 16.6 KB write
// buffer). The client session is freed first; a first connection warms OpenSSL's caches.
TEST_F(TlsContextTest, AnIdleServerSessionHoldsNoRecordBuffers) {
  if (!test::glibc_counts_the_heap()) GTEST_SKIP() << "the heap is not glibc's (a sanitizer's)";
  {
    const tls_session server = server_tls->new_session(fds[0]);
    const tls_session client = client_tls->new_session(fds[1], "127.0.0.1");
    handshake_and_idle(server.get(), client.get());
  }
  TearDown();
  SetUp();
  const std::size_t before = mallinfo2().uordblks;
  const tls_session server = server_tls->new_session(fds[0]);
  {
    const tls_session client = client_tls->new_session(fds[1], "127.0.0.1");
    handshake_and_idle(server.get(), client.get());
    ASSERT_EQ(SSL_version(server.get()), TLS1_3_VERSION);
  }
  const std::size_t held = mallinfo2().uordblks - before;
  EXPECT_LT(held, 20'000u) << "bytes held by one idle TLS server session";
}

}  // namespace
}  // namespace ringcast
