// One TLS 1.3 connection's record layer: reading (records opened, alerts, KeyUpdate, empty records
// against their budgets) and the connection's life; sending is in record_stream_send.cpp.
#include "tls/record_stream.hpp"

#include <boost/asio/error.hpp>

#include <openssl/crypto.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <sys/socket.h>

#include "tls/tls_errors.hpp"

namespace ringcast {

using tls13::alert;
using tls13::content_type;

struct record_stream::inbound {
  explicit inbound(std::size_t n) : size(n), body(new unsigned char[n]) {}
  std::size_t size;        // the record's body
  std::size_t got = 0;     // bytes of the body read so far
  std::size_t offset = 0;  // once opened: the plaintext not yet read
  std::size_t left = 0;
  bool opened = false;
  std::unique_ptr<unsigned char[]> body;
};

void record_stream::inbound_free::operator()(inbound* in) const noexcept {
  OPENSSL_cleanse(in->body.get(), in->size);
  delete in;
}

namespace {

bool would_block(int e) {
  return e == EAGAIN || e == EWOULDBLOCK;
}

// The budgets' clock: whole seconds of the steady clock (wrapping after 136 years of uptime).
std::uint32_t steady_seconds() {
  return static_cast<std::uint32_t>(std::chrono::duration_cast<std::chrono::seconds>(
                                        std::chrono::steady_clock::now().time_since_epoch())
                                        .count());
}

boost::system::error_code system_error(int e) {
  return {e, boost::system::system_category()};
}

}  // namespace

std::unique_ptr<record_stream> record_stream::make(tls13::suite s,
                                                   std::span<const unsigned char> read_secret,
                                                   std::span<const unsigned char> write_secret) {
  std::unique_ptr<record_stream> r(new record_stream());
  if (!tls13::set_traffic_secret(r->read_keys_, s, read_secret) ||
      !tls13::set_traffic_secret(r->write_keys_, s, write_secret))
    return nullptr;
  return r;
}

// The keys clear themselves (~traffic_keys); the thread's cipher contexts may still hold their
// schedule.
record_stream::~record_stream() {
  tls13::forget_thread_keys();
}

std::size_t record_stream::buffered() const {
  return (in_ ? in_->size : 0) + unsent();
}

void record_stream::refuse(int fd, alert a, boost::system::error_code& ec) {
  if (!out_ && !failed_) send_alert(fd, a, true);
  failed_ = true;
  in_.reset();
  ec = tls_errc::record_refused;
}

bool record_stream::on_alert(int fd, std::span<const unsigned char> content,
                             boost::system::error_code& ec) {
  if (content.size() != 2) {
    // Not an alert at all (RFC 8446 section 6: a message that cannot be parsed): decode_error.
    refuse(fd, alert::decode_error, ec);
    return false;
  }
  if (content[1] == static_cast<unsigned char>(alert::close_notify)) {
    read_closed_ = true;
    ec = boost::asio::error::eof;
    return false;
  }
  failed_ = true;
  ec = tls_errc::peer_alert;
  return false;
}

bool record_stream::on_handshake(int fd, std::span<const unsigned char> content,
                                 boost::system::error_code& ec) {
  // KeyUpdate (type 24, length 1, request_update) is the one handshake message a server accepts
  // after the handshake, whole in its record and last in it (section 5.1: no message spans a key
  // change). A NewSessionTicket from a client, a CertificateRequest, anything else: refused.
  constexpr unsigned char key_update = 24;
  if (content.empty() || content[0] != key_update) {
    refuse(fd, alert::unexpected_message, ec);
    return false;
  }
  if (content.size() != 5 || content[1] != 0 || content[2] != 0 || content[3] != 1) {
    refuse(fd, alert::decode_error, ec);
    return false;
  }
  if (content[4] > 1) {
    refuse(fd, alert::illegal_parameter, ec);
    return false;
  }
  if (!key_updates_.take(steady_seconds())) {
    refuse(fd, alert::unexpected_message, ec);
    ec = tls_errc::key_update_limit;
    return false;
  }
  if (!tls13::update_traffic_secret(read_keys_)) {
    refuse(fd, alert::internal_error, ec);
    return false;
  }
  if (content[4] == 1) key_update_due_ = true;
  return true;
}

bool record_stream::on_empty_record(int fd, boost::system::error_code& ec) {
  if (empty_records_.take()) return true;
  refuse(fd, alert::unexpected_message, ec);
  ec = tls_errc::empty_record_limit;
  return false;
}

bool record_stream::fill(int fd, boost::system::error_code& ec) {
  for (;;) {
    if (in_ && in_->opened) {
      if (in_->left > 0) return true;
      in_.reset();
    }
    if (failed_) {
      ec = tls_errc::record_refused;
      return false;
    }
    if (read_closed_) {
      ec = boost::asio::error::eof;
      return false;
    }
    unsigned char* into = header_ + header_read_;
    std::size_t want = tls13::header_size - header_read_;
    if (in_) {
      into = in_->body.get() + in_->got;
      want = in_->size - in_->got;
    }
    const ssize_t n = ::recv(fd, into, want, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return socket_refused(errno, ec);
    if (n == 0) {
      // The peer closed TCP without close_notify (as OpenSSL is told to take it: the end); a
      // record cut short is never released.
      read_closed_ = true;
      in_.reset();
      ec = boost::asio::error::eof;
      return false;
    }
    if (!in_) {
      header_read_ = static_cast<std::uint8_t>(header_read_ + n);
      if (header_read_ < tls13::header_size) continue;
      alert refusal = alert::internal_error;
      const std::size_t size = tls13::body_size(header_, refusal);
      if (size == 0) {
        refuse(fd, refusal, ec);
        return false;
      }
      in_.reset(new inbound(size));
      continue;
    }
    in_->got += static_cast<std::size_t>(n);
    if (in_->got < in_->size) continue;
    header_read_ = 0;
    tls13::opened record;
    alert refusal = alert::internal_error;
    if (!tls13::open(read_keys_, header_, std::span(in_->body.get(), in_->size), record, refusal)) {
      refuse(fd, refusal, ec);
      return false;
    }
    const std::span<const unsigned char> content(in_->body.get(), record.size);
    switch (record.type) {
      case content_type::application_data:
        if (record.size == 0) {
          in_.reset();
          if (!on_empty_record(fd, ec)) return false;
          continue;
        }
        empty_records_.saw_application_bytes();
        in_->opened = true;
        in_->left = record.size;
        continue;
      case content_type::alert: {
        const bool go_on = on_alert(fd, content, ec);
        in_.reset();
        if (!go_on) return false;
        continue;
      }
      case content_type::handshake: {
        const bool go_on = on_handshake(fd, content, ec);
        in_.reset();
        if (!go_on) return false;
        continue;
      }
      default:
        refuse(fd, alert::unexpected_message, ec);
        return false;
    }
  }
}

std::size_t record_stream::read(int fd, std::span<unsigned char> data,
                                boost::system::error_code& ec) {
  ec.clear();
  if (data.empty()) return 0;
  if (!fill(fd, ec)) return 0;
  const std::size_t n = std::min(data.size(), in_->left);
  std::memcpy(data.data(), in_->body.get() + in_->offset, n);
  in_->offset += n;
  in_->left -= n;
  if (in_->left == 0) in_.reset();
  return n;
}

record_stream::readiness record_stream::probe(int fd) {
  boost::system::error_code ec;
  if (fill(fd, ec)) return readiness::data;
  return ec == boost::asio::error::would_block ? readiness::nothing : readiness::closed;
}

bool record_stream::socket_refused(int error, boost::system::error_code& ec) {
  if (would_block(error)) {
    ec = boost::asio::error::would_block;
  } else {
    failed_ = true;
    ec = system_error(error);
  }
  return false;
}

}  // namespace ringcast
