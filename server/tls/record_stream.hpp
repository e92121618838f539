// One TLS 1.3 connection after its handshake, without OpenSSL's SSL object: ringcast's own record
// layer over the socket (docs/security.md, "The record layer"). It keeps the two directions' keys
// (about 200 bytes) and nothing else while idle: a record is held only while it is half read, or
// while its plaintext waits for the reader, and a sealed record only while the socket would block
// in the middle of it.
//
// After the handshake the peer may send application data, alerts and KeyUpdate; a KeyUpdate with
// update_requested is answered with our own before our next record. Anything else ends the
// connection with a fatal alert: a record that fails authentication (bad_record_mac), one too
// large (record_overflow), any other handshake message or a change_cipher_spec record
// (unexpected_message). A close_notify ends the read side cleanly.
//
// Each KeyUpdate costs the loop a key derivation and each record an AEAD open, and a client may
// send KeyUpdates, or records with no application bytes, as fast as it likes: both are bounded
// (record_budgets.hpp, on the steady clock), and the first over its bound ends the connection with
// an unexpected_message alert (tls_errc::key_update_limit, tls_errc::empty_record_limit).
#pragma once

#include <boost/system/error_code.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "tls/record_budgets.hpp"
#include "tls/tls13_keys.hpp"
#include "tls/tls13_record.hpp"

namespace ringcast {

class record_stream {
 public:
  // Keys from the two application traffic secrets of a finished handshake (the peer's for
  // reading, ours for writing), both at sequence number 0. Null if OpenSSL fails.
  static std::unique_ptr<record_stream> make(tls13::suite s,
                                             std::span<const unsigned char> read_secret,
                                             std::span<const unsigned char> write_secret);

  // Plaintext from the peer into `data`: bytes (> 0), or 0 with `ec`: would_block (the socket has
  // no more for now), eof (close_notify, or the socket's end between records), or an error (the
  // connection has failed; a fatal alert went to the peer if it was ours to send).
  std::size_t read(int fd, std::span<unsigned char> data, boost::system::error_code& ec);

  // Seals the first bytes of `parts` (up to one record) and sends them: the plaintext bytes taken,
  // or 0 with `ec` (would_block: the next write must begin with the same bytes, as a partly sent
  // record is finished first; or an error).
  std::size_t write(int fd, std::span<const std::span<const unsigned char>> parts,
                    boost::system::error_code& ec);

  // Sends close_notify if the socket takes it now (after finishing a partly sent record); once.
  void send_close_notify(int fd);

  // For a held long-poll: has the peer sent application data (kept for the next read), ended the
  // stream or failed, or nothing (KeyUpdate and empty records are handled here)?
  enum class readiness { data, closed, nothing };
  readiness probe(int fd);

  bool failed() const { return failed_; }
  // Bytes held beyond the keys (a half read record or its plaintext, a half sent record).
  std::size_t buffered() const;

  record_stream(const record_stream&) = delete;
  record_stream& operator=(const record_stream&) = delete;
  ~record_stream();

 private:
  record_stream() = default;

  // A recv or send failed with `error`: would_block, or the stream has failed. False.
  bool socket_refused(int error, boost::system::error_code& ec);

  struct inbound;   // one record being read, then its plaintext
  struct outbound;  // the unsent rest of a sealed record
  struct inbound_free {
    void operator()(inbound* in) const noexcept;
  };
  struct outbound_free {
    void operator()(outbound* out) const noexcept;
  };

  // Reads and opens records until application data is waiting in in_ (true), or not (false with
  // `ec`: would_block, eof or the failure).
  bool fill(int fd, boost::system::error_code& ec);
  // One opened record's content, other than application data.
  bool on_alert(int fd, std::span<const unsigned char> content, boost::system::error_code& ec);
  bool on_handshake(int fd, std::span<const unsigned char> content, boost::system::error_code& ec);
  // An application data record with no content (or only padding): false, the connection ended,
  // once it is one too many in a row.
  bool on_empty_record(int fd, boost::system::error_code& ec);
  // Ends the connection: sends `a` as a fatal alert if no record is half sent.
  void refuse(int fd, tls13::alert a, boost::system::error_code& ec);

  // Sending (record_stream_send.cpp).
  bool flush(int fd, boost::system::error_code& ec);  // the half sent record, if any
  // A fatal alert or close_notify, sealed and sent if the socket takes it now; nothing else waits
  // for it (the connection is ending).
  void send_alert(int fd, tls13::alert a, bool fatal);
  std::size_t unsent() const;  // bytes of the half sent record

  tls13::traffic_keys read_keys_;
  tls13::traffic_keys write_keys_;
  std::unique_ptr<inbound, inbound_free> in_;
  std::unique_ptr<outbound, outbound_free> out_;
  unsigned char header_[tls13::header_size] = {};
  std::uint8_t header_read_ = 0;
  bool key_update_due_ = false;  // the peer asked for ours: it goes before our next record
  bool read_closed_ = false;
  bool close_sent_ = false;
  bool failed_ = false;
  // What the peer may make us do for nothing (record_budgets.hpp). With them the object is 248
  // bytes, 8 more than before the empty-record count, in the same 256-byte glibc chunk.
  empty_record_budget empty_records_;
  key_update_budget key_updates_;
};

}  // namespace ringcast
