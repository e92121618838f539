// ringcast's TLS 1.3 record layer (server/tls/record_stream) reading what a client sends after the
// handshake. Most inputs would never authenticate, so the target plays the client: the input is a
// list of steps, each either a record sealed with the client's keys (any inner content type, any
// content, zero padding or none; a KeyUpdate it seals moves the client's keys on as the server's
// must) or raw bytes written under the stream (a header alone, a forged record, a split record).
// The server side reads it all with record_stream::read through a socket pair.
//
// Properties: what the reader releases is always a prefix of the application data the client
// sealed, in order (no unauthenticated byte, nothing of an alert or handshake record); with no raw
// bytes and only valid records it is all of it; the layer holds at most one record between reads.
//
// Step encoding: op = byte. op % 4 == 0: raw, length = next byte, then those bytes. Else sealed:
// type = next byte (23 application_data, 21 alert, 22 handshake, anything; 0 makes the content's
// last non-zero byte the type), length = next two bytes % 16385, content, then op / 4 % 4 zero
// bytes of padding.
#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "fuzz_check.hpp"
#include "tls/record_stream.hpp"
#include "tls/tls13_keys.hpp"
#include "tls/tls13_record.hpp"

namespace {

using namespace ringcast;

struct socket_pair {
  int server = -1, client = -1;
  socket_pair() {
    int fds[2];
    FUZZ_CHECK(::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) == 0);
    server = fds[0];
    client = fds[1];
    for (int fd : fds)
      ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
    const int size = 1 << 20;
    ::setsockopt(client, SOL_SOCKET, SO_SNDBUF, &size, sizeof size);
    ::setsockopt(server, SOL_SOCKET, SO_RCVBUF, &size, sizeof size);
  }
  ~socket_pair() {
    ::close(server);
    ::close(client);
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<unsigned char> secret(32, 0x42);
  auto server = record_stream::make(tls13::suite::aes_128_gcm_sha256, secret, secret);
  FUZZ_CHECK(server);
  tls13::traffic_keys client;
  FUZZ_CHECK(tls13::set_traffic_secret(client, tls13::suite::aes_128_gcm_sha256, secret));
  socket_pair sockets;

  std::string sealed_data;  // application data the client sealed, in order
  bool only_valid = true;   // no raw bytes, no record the server must refuse
  std::string released;
  std::vector<unsigned char> record(tls13::max_sealed + 8);
  std::array<unsigned char, 4096> buffer;

  auto drain = [&] {
    for (;;) {
      boost::system::error_code ec;
      const std::size_t n = server->read(sockets.server, buffer, ec);
      if (ec) return;
      released.append(reinterpret_cast<const char*>(buffer.data()), n);
      FUZZ_CHECK(server->buffered() <= tls13::max_ciphertext);
    }
  };

  std::size_t i = 0;
  while (i < size) {
    const std::uint8_t op = data[i++];
    if (op % 4 == 0) {
      if (i >= size) break;
      const std::size_t want = data[i++];
      const std::size_t n = std::min(want, size - i);
      only_valid = false;
      if (::send(sockets.client, data + i, n, 0) != static_cast<ssize_t>(n)) break;
      i += n;
    } else {
      if (i + 3 > size) break;
      const std::uint8_t type = data[i];
      std::size_t n = ((std::size_t{data[i + 1]} << 8) | data[i + 2]) % (tls13::max_plaintext + 1);
      i += 3;
      n = std::min(n, size - i);
      const std::size_t padding = op / 4 % 4;
      // TLSInnerPlaintext: content, type, zeros. seal() appends its last byte as the "type".
      std::vector<unsigned char> inner(data + i, data + i + n);
      i += n;
      inner.push_back(type);
      inner.insert(inner.end(), padding, 0);
      const auto last = static_cast<tls13::content_type>(inner.back());
      inner.pop_back();
      if (inner.size() > tls13::max_plaintext) break;
      const std::span<const unsigned char> part(inner);
      const std::size_t sealed = tls13::seal(client, last, std::span(&part, 1), record.data());
      FUZZ_CHECK(sealed > 0);
      // What the server must find: zeros stripped, the last byte left is the type.
      inner.push_back(static_cast<unsigned char>(last));
      while (!inner.empty() && inner.back() == 0)
        inner.pop_back();
      const int found = inner.empty() ? -1 : inner.back();
      if (!inner.empty()) inner.pop_back();
      if (found == 23) {
        sealed_data.append(reinterpret_cast<const char*>(inner.data()), inner.size());
      } else if (found == 22 && inner.size() == 5 && inner[0] == 24 && inner[1] == 0 &&
                 inner[2] == 0 && inner[3] == 1 && inner[4] <= 1) {
        FUZZ_CHECK(tls13::update_traffic_secret(client));  // the server's read key moves on too
      } else {
        only_valid = false;
      }
      if (::send(sockets.client, record.data(), sealed, 0) != static_cast<ssize_t>(sealed)) break;
    }
    drain();
  }
  drain();
  FUZZ_CHECK(released.size() <= sealed_data.size());
  FUZZ_CHECK(sealed_data.compare(0, released.size(), released) == 0);
  if (only_valid) FUZZ_CHECK(released == sealed_data);
  return 0;
}
