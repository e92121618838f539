// record_stream's sending direction: our records (application data, our KeyUpdate before it when
// the peer asked for one), alerts and close_notify, and the sealed record the socket could not
// take whole. Reading and the connection's life are in record_stream.cpp.
#include "tls/record_stream.hpp"

#include <boost/asio/error.hpp>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include <sys/socket.h>

#include "tls/tls_errors.hpp"

namespace ringcast {

using tls13::alert;
using tls13::content_type;

struct record_stream::outbound {
  outbound(const unsigned char* data, std::size_t n, std::size_t plain)
      : size(n), plaintext(plain), bytes(new unsigned char[n]) {
    std::memcpy(bytes.get(), data, n);
  }
  std::size_t size;
  std::size_t sent = 0;
  std::size_t plaintext;  // what the caller's write is told once the record is out
  std::unique_ptr<unsigned char[]> bytes;
};

void record_stream::outbound_free::operator()(outbound* out) const noexcept {
  delete out;
}

std::size_t record_stream::unsent() const {
  return out_ ? out_->size : 0;
}

void record_stream::send_alert(int fd, alert a, bool fatal) {
  const std::array<unsigned char, 2> body = {static_cast<unsigned char>(fatal ? 2 : 1),
                                             static_cast<unsigned char>(a)};
  const std::span<const unsigned char> part(body);
  std::array<unsigned char, tls13::header_size + 2 + 1 + tls13::tag_size> record{};
  const std::size_t n =
      tls13::seal(write_keys_, content_type::alert, std::span(&part, 1), record.data());
  if (n > 0) (void)::send(fd, record.data(), n, MSG_NOSIGNAL | MSG_DONTWAIT);
}

bool record_stream::flush(int fd, boost::system::error_code& ec) {
  while (out_ && out_->sent < out_->size) {
    const ssize_t n =
        ::send(fd, out_->bytes.get() + out_->sent, out_->size - out_->sent, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return socket_refused(errno, ec);
    out_->sent += static_cast<std::size_t>(n);
  }
  return true;
}

std::size_t record_stream::write(int fd, std::span<const std::span<const unsigned char>> parts,
                                 boost::system::error_code& ec) {
  ec.clear();
  if (failed_) {
    ec = tls_errc::record_refused;
    return 0;
  }
  if (close_sent_) {
    ec = boost::asio::error::shut_down;
    return 0;
  }
  if (out_) {
    if (!flush(fd, ec)) return 0;
    const std::size_t n = out_->plaintext;
    out_.reset();
    return n;
  }
  // The first max_plaintext bytes of `parts`.
  std::array<std::span<const unsigned char>, 16> taken;
  std::size_t count = 0, plain = 0;
  for (const auto& p : parts) {
    if (p.empty()) continue;
    if (count == taken.size() || plain == tls13::max_plaintext) break;
    taken[count++] = p.first(std::min(p.size(), tls13::max_plaintext - plain));
    plain += taken[count - 1].size();
  }
  if (plain == 0) return 0;

  constexpr std::size_t key_update_record = tls13::header_size + 5 + 1 + tls13::tag_size;
  std::array<unsigned char, key_update_record + tls13::max_sealed> buffer;
  std::size_t size = 0;
  if (key_update_due_) {
    // Ours, update_not_requested, under the old key; then the new key for what follows.
    static constexpr std::array<unsigned char, 5> key_update = {24, 0, 0, 1, 0};
    const std::span<const unsigned char> message(key_update);
    size = tls13::seal(write_keys_, content_type::handshake, std::span(&message, 1), buffer.data());
    if (size == 0 || !tls13::update_traffic_secret(write_keys_)) {
      failed_ = true;
      ec = tls_errc::record_refused;
      return 0;
    }
    key_update_due_ = false;
  }
  const std::size_t sealed = tls13::seal(write_keys_, content_type::application_data,
                                         std::span(taken.data(), count), buffer.data() + size);
  if (sealed == 0) {
    failed_ = true;
    ec = tls_errc::record_refused;
    return 0;
  }
  size += sealed;
  ssize_t n = 0;
  do {
    n = ::send(fd, buffer.data(), size, MSG_NOSIGNAL);
  } while (n < 0 && errno == EINTR);
  if (n == static_cast<ssize_t>(size)) return plain;
  if (n < 0) {
    (void)socket_refused(errno, ec);  // would_block: the record is kept below; else it failed
    if (ec != boost::asio::error::would_block) return 0;
  }
  // The record is sealed under its sequence number: it goes out as it is, never sealed again.
  const std::size_t sent = n > 0 ? static_cast<std::size_t>(n) : 0;
  out_.reset(new outbound(buffer.data() + sent, size - sent, plain));
  ec = boost::asio::error::would_block;
  return 0;
}

void record_stream::send_close_notify(int fd) {
  if (failed_ || close_sent_) return;
  close_sent_ = true;
  boost::system::error_code ec;
  if (out_ && !flush(fd, ec)) return;  // a half sent record cannot be cut into
  out_.reset();
  send_alert(fd, alert::close_notify, false);
}

}  // namespace ringcast
