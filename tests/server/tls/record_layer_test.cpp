// ringcast's TLS 1.3 record layer (tls13_keys, tls13_record, record_stream, record_handover):
// the key schedule against RFC 8448's published vectors, and a real OpenSSL client (the peer
// people use) talking to a server whose SSL object was freed after the handshake: data both ways,
// KeyUpdate both ways, and the records it refuses (the alert the client gets, and that only this
// connection ends). Records the OpenSSL client would never send are sealed here with the client's
// own keys, taken from its keylog callback.
#include "tls/record_handover.hpp"
#include "tls/record_stream.hpp"
#include "tls/tls13_keys.hpp"
#include "tls/tls13_record.hpp"
#include "tls/tls_context.hpp"

#include "test_certificate.hpp"

#include <boost/asio/error.hpp>

#include <fcntl.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace ringcast {
namespace {

using error_code = boost::system::error_code;
using bytes = std::vector<unsigned char>;

bytes from_hex(std::string_view hex) {
  bytes out;
  for (std::size_t i = 0; i + 1 < hex.size(); i += 2)
    out.push_back(
        static_cast<unsigned char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  return out;
}

bytes key_of(const tls13::traffic_keys& k) {
  return bytes(k.key.begin(), k.key.begin() + tls13::key_size(k.cipher));
}
bytes iv_of(const tls13::traffic_keys& k) {
  return bytes(k.iv.begin(), k.iv.end());
}

// RFC 8448 section 3, "Simple 1-RTT Handshake" (TLS_AES_128_GCM_SHA256).
TEST(Tls13Keys, ApplicationKeysMatchRfc8448) {
  tls13::traffic_keys server, client;
  ASSERT_TRUE(tls13::set_traffic_secret(
      server, tls13::suite::aes_128_gcm_sha256,
      from_hex("a11af9f05531f856ad47116b45a950328204b4f44bfb6b3a4b4f1f3fcb631643")));
  EXPECT_EQ(key_of(server), from_hex("9f02283b6c9c07efc26bb9f2ac92e356"));
  EXPECT_EQ(iv_of(server), from_hex("cf782b88dd83549aadf1e984"));
  ASSERT_TRUE(tls13::set_traffic_secret(
      client, tls13::suite::aes_128_gcm_sha256,
      from_hex("9e40646ce79a7f9dc05af8889bce6552875afa0b06df0087f792ebb7c17504a5")));
  EXPECT_EQ(key_of(client), from_hex("17422dda596ed5d9acd890e3c63f5051"));
  EXPECT_EQ(iv_of(client), from_hex("5b78923dee08579033e523d9"));
  EXPECT_EQ(client.seq, 0u);
}

TEST(Tls13Keys, ASecretOfTheWrongSizeIsRefused) {
  tls13::traffic_keys keys;
  EXPECT_FALSE(tls13::set_traffic_secret(keys, tls13::suite::aes_256_gcm_sha384, bytes(32, 1)));
  EXPECT_TRUE(tls13::set_traffic_secret(keys, tls13::suite::aes_256_gcm_sha384, bytes(48, 1)));
  EXPECT_EQ(key_of(keys).size(), 32u);
}

TEST(Tls13Record, SealedRecordOpensAndATamperedOneDoesNot) {
  for (const auto s : {tls13::suite::aes_128_gcm_sha256, tls13::suite::aes_256_gcm_sha384,
                       tls13::suite::chacha20_poly1305_sha256}) {
    tls13::traffic_keys writer, reader;
    const bytes secret(tls13::secret_size(s), 7);
    ASSERT_TRUE(tls13::set_traffic_secret(writer, s, secret));
    ASSERT_TRUE(tls13::set_traffic_secret(reader, s, secret));
    const std::string text = "hello";
    const std::span<const unsigned char> part(reinterpret_cast<const unsigned char*>(text.data()),
                                              text.size());
    std::array<unsigned char, 64> record{};
    for (int round = 0; round < 2; ++round) {
      const std::size_t n = tls13::seal(writer, tls13::content_type::application_data,
                                        std::span(&part, 1), record.data());
      ASSERT_EQ(n, 5 + text.size() + 1 + 16);
      unsigned char header[5];
      std::copy_n(record.begin(), 5, header);
      tls13::alert refusal{};
      ASSERT_EQ(tls13::body_size(header, refusal), n - 5);
      tls13::opened opened;
      if (round == 1) record[n - 1] ^= 1;  // the tag's last byte
      const bool ok =
          tls13::open(reader, header, std::span(record.data() + 5, n - 5), opened, refusal);
      if (round == 0) {
        ASSERT_TRUE(ok);
        EXPECT_EQ(opened.type, tls13::content_type::application_data);
        EXPECT_EQ(std::string(reinterpret_cast<char*>(record.data() + 5), opened.size), text);
      } else {
        EXPECT_FALSE(ok);
        EXPECT_EQ(refusal, tls13::alert::bad_record_mac);
        // Nothing unauthenticated is left in the buffer.
        EXPECT_EQ(std::count(record.begin() + 5, record.begin() + n, 0), long(n - 5));
      }
    }
  }
}

TEST(Tls13Record, HeadersAreChecked) {
  tls13::alert refusal{};
  const unsigned char too_long[5] = {0x17, 3, 3, 0x41, 0x01};  // 2^14 + 257
  EXPECT_EQ(tls13::body_size(too_long, refusal), 0u);
  EXPECT_EQ(refusal, tls13::alert::record_overflow);
  const unsigned char longest[5] = {0x17, 3, 3, 0x41, 0x00};
  EXPECT_EQ(tls13::body_size(longest, refusal), 16640u);
  const unsigned char change_cipher_spec[5] = {0x14, 3, 3, 0, 1};
  EXPECT_EQ(tls13::body_size(change_cipher_spec, refusal), 0u);
  EXPECT_EQ(refusal, tls13::alert::unexpected_message);
  const unsigned char wrong_version[5] = {0x17, 3, 1, 0, 20};
  EXPECT_EQ(tls13::body_size(wrong_version, refusal), 0u);
  EXPECT_EQ(refusal, tls13::alert::decode_error);
  const unsigned char too_short[5] = {0x17, 3, 3, 0, 16};
  EXPECT_EQ(tls13::body_size(too_short, refusal), 0u);
}

// The client's application traffic secrets, from its keylog callback.
struct client_secrets {
  bytes client, server;
};

void keep_client_secrets(const SSL* ssl, const char* line) {
  auto* s = static_cast<client_secrets*>(SSL_get_app_data(ssl));
  const std::string_view text(line);
  const std::string_view hex = text.substr(text.rfind(' ') + 1);
  if (text.starts_with("CLIENT_TRAFFIC_SECRET_0 ")) s->client = from_hex(hex);
  if (text.starts_with("SERVER_TRAFFIC_SECRET_0 ")) s->server = from_hex(hex);
}

// Handshake types the client received after its own handshake (24: KeyUpdate).
std::vector<int>* received_handshake_types = nullptr;
void note_message(int write_p, int, int content_type, const void* buf, size_t len, SSL*, void*) {
  if (!write_p && content_type == SSL3_RT_HANDSHAKE && len > 0 && received_handshake_types)
    received_handshake_types->push_back(static_cast<const unsigned char*>(buf)[0]);
}

class RecordLayerTest : public testing::Test {
 protected:
  void SetUp() override {
    auto server = tls_context::for_server(cert.cert_file, cert.key_file);
    ASSERT_TRUE(server) << server.error;
    server_tls.emplace(std::move(*server.value));
    client_ctx = SSL_CTX_new(TLS_client_method());
    SSL_CTX_set_min_proto_version(client_ctx, TLS1_3_VERSION);
    SSL_CTX_set_keylog_callback(client_ctx, keep_client_secrets);
    SSL_CTX_set_msg_callback(client_ctx, note_message);
    received_handshake_types = &received;
    int fds[2];
    ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    server_fd = fds[0];
    client_fd = fds[1];
    for (int fd : fds)
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  }
  void TearDown() override {
    received_handshake_types = nullptr;
    SSL_free(client);
    SSL_CTX_free(client_ctx);
    ::close(server_fd);
    ::close(client_fd);
  }

  // Both handshakes, the server's SSL replaced by the record layer. `early` goes from the client
  // right after its Finished, before the server has read that (in the same flight).
  void connect(const char* suites = nullptr, std::string_view early = {}) {
    if (suites) SSL_CTX_set_ciphersuites(client_ctx, suites);
    client = SSL_new(client_ctx);
    SSL_set_app_data(client, &secrets);
    SSL_set_fd(client, client_fd);
    SSL_set_connect_state(client);
    tls_session server = server_tls->new_session(server_fd);
    bool client_done = false, server_done = false, early_sent = early.empty();
    for (int i = 0; i < 100 && !(client_done && server_done); ++i) {
      if (!client_done) client_done = SSL_do_handshake(client) == 1;
      if (client_done && !early_sent) {
        ASSERT_EQ(SSL_write(client, early.data(), static_cast<int>(early.size())),
                  static_cast<int>(early.size()));
        early_sent = true;
      }
      if (!server_done && (client_done || i % 2 == 0))
        server_done = SSL_do_handshake(server.get()) == 1;
    }
    ASSERT_TRUE(client_done && server_done);
    records = take_over(server.get());
    ASSERT_TRUE(records);
    ASSERT_EQ(secrets.client.size(), secrets.server.size());
    const auto suite =
        tls13::suite_from_id(SSL_CIPHER_get_protocol_id(SSL_get_current_cipher(client)));
    ASSERT_TRUE(suite);
    ASSERT_TRUE(tls13::set_traffic_secret(client_keys, *suite, secrets.client));
  }

  std::string server_read() {
    std::string text;
    std::array<unsigned char, 4096> buffer;
    for (;;) {
      error_code ec;
      const std::size_t n = records->read(server_fd, buffer, ec);
      if (ec) {
        last_read_error = ec;
        return text;
      }
      text.append(reinterpret_cast<char*>(buffer.data()), n);
    }
  }
  void server_write(const std::string& text) {
    const std::span<const unsigned char> part(reinterpret_cast<const unsigned char*>(text.data()),
                                              text.size());
    std::size_t done = 0;
    while (done < text.size()) {
      error_code ec;
      const std::span<const unsigned char> rest = part.subspan(done);
      const std::size_t n = records->write(server_fd, std::span(&rest, 1), ec);
      if (ec == boost::asio::error::would_block) {
        client_read();  // makes room
        continue;
      }
      ASSERT_FALSE(ec) << ec.message();
      done += n;
    }
  }
  // What the client's SSL reads now; its failure's OpenSSL reason in client_reason.
  std::string client_read() {
    std::string text;
    char buffer[4096];
    for (;;) {
      const int n = SSL_read(client, buffer, sizeof buffer);
      if (n > 0) {
        text.append(buffer, static_cast<std::size_t>(n));
        continue;
      }
      const int e = SSL_get_error(client, n);
      if (e == SSL_ERROR_SSL) client_reason = ERR_GET_REASON(ERR_peek_error());
      if (e == SSL_ERROR_ZERO_RETURN) client_closed = true;
      ERR_clear_error();
      return text;
    }
  }
  void client_write(const std::string& text) {
    ASSERT_EQ(SSL_write(client, text.data(), static_cast<int>(text.size())),
              static_cast<int>(text.size()));
  }
  // A record sealed with the client's keys, sent as the client's next.
  void client_send_raw(tls13::content_type type, const bytes& content) {
    std::vector<unsigned char> record(content.size() + 32);
    const std::span<const unsigned char> part(content);
    const std::size_t n = tls13::seal(client_keys, type, std::span(&part, 1), record.data());
    ASSERT_GT(n, 0u);
    ASSERT_EQ(::send(client_fd, record.data(), n, 0), static_cast<ssize_t>(n));
  }

  certificate cert;
  std::optional<tls_context> server_tls;
  SSL_CTX* client_ctx = nullptr;
  SSL* client = nullptr;
  client_secrets secrets;
  std::vector<int> received;
  int server_fd = -1, client_fd = -1;
  std::unique_ptr<record_stream> records;
  tls13::traffic_keys client_keys;
  error_code last_read_error;
  int client_reason = 0;
  bool client_closed = false;
};

TEST_F(RecordLayerTest, DataGoesBothWaysForEverySuite) {
  for (const char* s :
       {"TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384", "TLS_CHACHA20_POLY1305_SHA256"}) {
    SCOPED_TRACE(s);
    TearDown();
    SetUp();
    connect(s);
    client_write("ping");
    EXPECT_EQ(server_read(), "ping");
    EXPECT_EQ(last_read_error, boost::asio::error::would_block);
    const std::string big(40000, 'x');  // three records
    server_write("pong");
    server_write(big);
    EXPECT_EQ(client_read(), "pong" + big);
    EXPECT_EQ(records->buffered(), 0u);  // idle: nothing held but the keys
  }
}

TEST_F(RecordLayerTest, ARequestInTheSameFlightAsTheClientFinishedIsRead) {
  connect(nullptr, "GET / HTTP/1.1\r\n\r\n");
  EXPECT_EQ(server_read(), "GET / HTTP/1.1\r\n\r\n");
}

TEST_F(RecordLayerTest, KeyUpdateBothWays) {
  connect();
  for (int round = 0; round < 3; ++round) {
    ASSERT_EQ(SSL_key_update(client, SSL_KEY_UPDATE_REQUESTED), 1);
    client_write("after update " + std::to_string(round));
    EXPECT_EQ(server_read(), "after update " + std::to_string(round));
    server_write("answer " + std::to_string(round));
    EXPECT_EQ(client_read(), "answer " + std::to_string(round));
  }
  // The client received our own KeyUpdate (type 24) each time, before our data.
  EXPECT_EQ(std::count(received.begin(), received.end(), 24), 3);
  ASSERT_EQ(SSL_key_update(client, SSL_KEY_UPDATE_NOT_REQUESTED), 1);
  client_write("quiet update");
  EXPECT_EQ(server_read(), "quiet update");
  server_write("still");
  EXPECT_EQ(client_read(), "still");
  EXPECT_EQ(std::count(received.begin(), received.end(), 24), 3);
}

// A client may send KeyUpdates as fast as it likes, each a key derivation on the loop: the first
// key_update_budget::per_window in a minute are taken, and the next ends the connection
// with an unexpected_message alert (fails on the layer that took them without bound: all 100).
TEST_F(RecordLayerTest, KeyUpdatesBeyondTheBudgetEndTheConnection) {
  connect();
  int taken = 0;
  for (; taken < 100; ++taken) {
    ASSERT_EQ(SSL_key_update(client, SSL_KEY_UPDATE_NOT_REQUESTED), 1);
    client_write("after update " + std::to_string(taken));
    if (server_read() != "after update " + std::to_string(taken)) break;
  }
  EXPECT_EQ(taken, key_update_budget::per_window);
  EXPECT_EQ(last_read_error, tls_errc::key_update_limit);
  EXPECT_TRUE(records->failed());
  client_read();
  EXPECT_EQ(client_reason, SSL_R_SSLV3_ALERT_UNEXPECTED_MESSAGE);
}

// A KeyUpdate the client asks ours for counts the same, and the budget is per connection: a
// second connection on the same thread starts with all of it.
TEST_F(RecordLayerTest, TheKeyUpdateBudgetIsPerConnection) {
  for (int connection = 0; connection < 2; ++connection) {
    SCOPED_TRACE(connection);
    TearDown();
    SetUp();
    connect();
    for (int round = 0; round < key_update_budget::per_window; ++round) {
      ASSERT_EQ(SSL_key_update(client, SSL_KEY_UPDATE_REQUESTED), 1);
      client_write("r" + std::to_string(round));
      ASSERT_EQ(server_read(), "r" + std::to_string(round));
      server_write("a" + std::to_string(round));
      ASSERT_EQ(client_read(), "a" + std::to_string(round));
    }
    EXPECT_FALSE(records->failed());
  }
}

// When a connection's record layer goes, this thread's cipher contexts (which hold the key
// schedule of the last record they sealed or opened) go with it, and the next connection's
// records work with new ones. What this shows is that the contexts are freed, which OpenSSL
// documents as clearing them (EVP_CIPHER_CTX_free); not that the freed memory reads as zeros.
// ~traffic_keys clears the connection's own secrets, keys and IVs.
TEST_F(RecordLayerTest, AClosedConnectionLeavesTheThreadNoCipherContext) {
  for (int connection = 0; connection < 2; ++connection) {
    SCOPED_TRACE(connection);
    TearDown();
    SetUp();
    connect();
    client_write("ping");
    EXPECT_EQ(server_read(), "ping");
    server_write("pong");
    EXPECT_EQ(client_read(), "pong");
    EXPECT_GT(tls13::thread_cipher_contexts(), 0u);
    records.reset();
    EXPECT_EQ(tls13::thread_cipher_contexts(), 0u);
  }
}

TEST_F(RecordLayerTest, ATamperedRecordEndsTheConnectionWithBadRecordMac) {
  connect();
  client_write("secret");
  std::array<unsigned char, 64> raw{};
  const ssize_t n = ::recv(server_fd, raw.data(), raw.size(), 0);  // the record, intercepted
  ASSERT_GT(n, 5);
  raw[static_cast<std::size_t>(n) - 1] ^= 0x80;
  ASSERT_EQ(::send(client_fd, raw.data(), static_cast<std::size_t>(n), 0), n);
  EXPECT_EQ(server_read(), "");
  EXPECT_EQ(last_read_error, tls_errc::record_refused);
  EXPECT_TRUE(records->failed());
  client_read();
  EXPECT_EQ(client_reason, SSL_R_SSLV3_ALERT_BAD_RECORD_MAC);
}

TEST_F(RecordLayerTest, AnOversizeRecordEndsTheConnectionWithRecordOverflow) {
  connect();
  const unsigned char header[5] = {0x17, 3, 3, 0x41, 0x01};
  ASSERT_EQ(::send(client_fd, header, sizeof header, 0), 5);
  EXPECT_EQ(server_read(), "");
  EXPECT_EQ(last_read_error, tls_errc::record_refused);
  client_read();
  EXPECT_EQ(client_reason, SSL_R_TLSV1_ALERT_RECORD_OVERFLOW);
}

// RFC 8446 section 6: a message that cannot be parsed is answered decode_error. An alert record
// is two bytes; three are none.
TEST_F(RecordLayerTest, AMalformedAlertEndsTheConnectionWithDecodeError) {
  connect();
  client_send_raw(tls13::content_type::alert, {1, 0, 0});
  EXPECT_EQ(server_read(), "");
  EXPECT_EQ(last_read_error, tls_errc::record_refused);
  EXPECT_TRUE(records->failed());
  client_read();
  EXPECT_EQ(client_reason, SSL_R_TLSV1_ALERT_DECODE_ERROR);
}

TEST_F(RecordLayerTest, OtherHandshakeMessagesAreUnexpected) {
  connect();
  // A NewSessionTicket (type 4) from the client.
  client_send_raw(tls13::content_type::handshake, {4, 0, 0, 4, 0, 0, 0, 0});
  EXPECT_EQ(server_read(), "");
  EXPECT_EQ(last_read_error, tls_errc::record_refused);
  client_read();
  EXPECT_EQ(client_reason, SSL_R_SSLV3_ALERT_UNEXPECTED_MESSAGE);
}

TEST_F(RecordLayerTest, AChangeCipherSpecAfterTheHandshakeIsUnexpected) {
  connect();
  const unsigned char ccs[6] = {0x14, 3, 3, 0, 1, 1};
  ASSERT_EQ(::send(client_fd, ccs, sizeof ccs, 0), 6);
  EXPECT_EQ(server_read(), "");
  client_read();
  EXPECT_EQ(client_reason, SSL_R_SSLV3_ALERT_UNEXPECTED_MESSAGE);
}

TEST_F(RecordLayerTest, PaddingIsStrippedAndAllPaddingIsUnexpected) {
  connect();
  client_send_raw(tls13::content_type::invalid, bytes{'h', 'i', 23, 0, 0, 0});  // padded
  EXPECT_EQ(server_read(), "hi");
  client_send_raw(tls13::content_type::invalid, bytes(8, 0));  // no content type at all
  EXPECT_EQ(server_read(), "");
  client_read();
  EXPECT_EQ(client_reason, SSL_R_SSLV3_ALERT_UNEXPECTED_MESSAGE);
}

// Each record is an AEAD open, and one with no application bytes gives the reader nothing: records
// with no content, or only padding, are taken empty_record_budget::most_in_a_row at a time
// between records with data, and the next ends the connection with an unexpected_message alert
// (fails on the layer that skipped them without bound: it read "late").
TEST_F(RecordLayerTest, EmptyRecordsBeyondTheBoundInARowEndTheConnection) {
  connect();
  const auto send_empty = [&](int count) {
    for (int i = 0; i < count; ++i) {
      if (i % 2 == 0) {
        client_send_raw(tls13::content_type::invalid, bytes{23});  // no content
      } else {
        client_send_raw(tls13::content_type::invalid, bytes{23, 0, 0, 0});  // only padding
      }
    }
  };
  const auto send_text = [&](std::string_view text) {
    bytes content(text.begin(), text.end());
    client_send_raw(tls13::content_type::application_data, content);
  };
  for (const char* text : {"first", "second"}) {
    send_empty(empty_record_budget::most_in_a_row);
    send_text(text);
    EXPECT_EQ(server_read(), text);
    EXPECT_EQ(last_read_error, boost::asio::error::would_block);
  }
  send_empty(empty_record_budget::most_in_a_row + 1);
  send_text("late");
  EXPECT_EQ(server_read(), "");
  EXPECT_EQ(last_read_error, tls_errc::empty_record_limit);
  EXPECT_EQ(last_read_error.message(), "too many empty TLS records in a row from the peer");
  EXPECT_TRUE(records->failed());
  client_read();
  EXPECT_EQ(client_reason, SSL_R_SSLV3_ALERT_UNEXPECTED_MESSAGE);
}

TEST_F(RecordLayerTest, CloseNotifyEndsTheReadSideCleanlyAndWritesGoOn) {
  connect();
  client_write("last words");
  ASSERT_GE(SSL_shutdown(client), 0);
  EXPECT_EQ(server_read(), "last words");
  EXPECT_EQ(last_read_error, boost::asio::error::eof);
  EXPECT_FALSE(records->failed());
  server_write("goodbye");
  records->send_close_notify(server_fd);
  EXPECT_EQ(client_read(), "goodbye");
  EXPECT_TRUE(client_closed);
}

TEST_F(RecordLayerTest, AHalfReadRecordIsHeldOnlyUntilItIsWhole) {
  connect();
  client_write(std::string(1000, 'z'));
  std::array<unsigned char, 2048> raw{};
  const ssize_t n = ::recv(server_fd, raw.data(), raw.size(), 0);
  ASSERT_GT(n, 100);
  ASSERT_EQ(::send(client_fd, raw.data(), 100, 0), 100);
  EXPECT_EQ(server_read(), "");
  EXPECT_EQ(last_read_error, boost::asio::error::would_block);
  EXPECT_EQ(records->buffered(), static_cast<std::size_t>(n) - 5);
  ASSERT_EQ(::send(client_fd, raw.data() + 100, static_cast<std::size_t>(n) - 100, 0), n - 100);
  EXPECT_EQ(server_read(), std::string(1000, 'z'));
  EXPECT_EQ(records->buffered(), 0u);
}

TEST_F(RecordLayerTest, AWriteTheSocketCannotTakeIsFinishedFirst) {
  connect();
  // Fill the socket until a record is half sent.
  const std::string chunk(16384, 'q');
  const std::span<const unsigned char> part(reinterpret_cast<const unsigned char*>(chunk.data()),
                                            chunk.size());
  std::size_t sent = 0;
  for (;;) {
    error_code ec;
    sent += records->write(server_fd, std::span(&part, 1), ec);
    if (ec == boost::asio::error::would_block) break;
    ASSERT_FALSE(ec);
  }
  EXPECT_GT(records->buffered(), 0u);
  std::string got = client_read();
  error_code ec;
  const std::size_t n = records->write(server_fd, std::span(&part, 1), ec);
  ASSERT_FALSE(ec);
  EXPECT_EQ(n, chunk.size());
  EXPECT_EQ(records->buffered(), 0u);
  got += client_read();
  EXPECT_EQ(got, std::string(sent + n, 'q'));
}

}  // namespace
}  // namespace ringcast
