// One TLS 1.3 record, sealed or opened (RFC 8446 section 5.2): TLSInnerPlaintext = content, then
// the content type, no padding when sealing; the nonce is the IV XOR the sequence number; the
// additional data is the record header (0x17 0x03 0x03, length). The AEAD is OpenSSL's, through a
// cipher context per thread (an event loop is a thread) re-keyed for every record: a connection
// keeps only its keys (tls13_keys.hpp), never a context of its own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "tls/tls13_keys.hpp"

namespace ringcast::tls13 {

constexpr std::size_t header_size = 5;
constexpr std::size_t tag_size = 16;
constexpr std::size_t max_plaintext = 16384;                 // 2^14
constexpr std::size_t max_ciphertext = max_plaintext + 256;  // 2^14 + 256, section 5.2
// The largest record ringcast seals: header, a full fragment, the content type, the tag.
constexpr std::size_t max_sealed = header_size + max_plaintext + 1 + tag_size;

enum class content_type : std::uint8_t {
  invalid = 0,
  change_cipher_spec = 20,
  alert = 21,
  handshake = 22,
  application_data = 23,
};

// The alert descriptions this layer sends or tells apart (section 6).
enum class alert : std::uint8_t {
  close_notify = 0,
  unexpected_message = 10,
  bad_record_mac = 20,
  record_overflow = 22,
  decode_error = 50,
  illegal_parameter = 47,
  internal_error = 80,
};

// Seals the concatenation of `parts` (at most max_plaintext bytes in all) as one record of inner
// type `type` into `out` (room for the plaintext + 22 bytes), and advances the sequence number.
// Returns the record's size, or 0 when it cannot be sealed (OpenSSL failed, or the sequence
// number would wrap): the connection must end.
std::size_t seal(traffic_keys& keys, content_type type,
                 std::span<const std::span<const unsigned char>> parts, unsigned char* out);

// A connection's record layer is going: this thread's cipher contexts, which hold the key
// schedule of the last record sealed or opened here, are freed (EVP_CIPHER_CTX_free clears them)
// and set up again by the next record. The connection's own secrets, keys and IVs are cleared by
// ~traffic_keys. A connection moved to another loop leaves its last key schedule in the first
// loop's contexts until that loop's next record or closed connection.
void forget_thread_keys();
// How many cipher contexts this thread holds (0 to 6): what forget_thread_keys() frees.
std::size_t thread_cipher_contexts();

// The body length the record header `header` announces, or 0 with `refusal` set: the outer type
// must be application_data (a change_cipher_spec or plaintext record after the handshake is an
// unexpected_message), the version 0x0303 (decode_error), the length between 17 (one byte of
// content type and the tag) and 2^14 + 256 (record_overflow).
std::size_t body_size(const unsigned char (&header)[header_size], alert& refusal);

// Opens a record: `header` (checked by body_size) and its `body`, decrypted in place. Nothing of
// the body is to be read unless it returns true: then the content is body[0, size) of inner type
// `type`. False: `refusal` is the alert to send (bad_record_mac when the tag does not match,
// record_overflow for more than 2^14 bytes of content, unexpected_message for no content type),
// and the body has been wiped. Advances the sequence number when the record authenticates.
struct opened {
  content_type type = content_type::invalid;
  std::size_t size = 0;
};
bool open(traffic_keys& keys, const unsigned char (&header)[header_size],
          std::span<unsigned char> body, opened& result, alert& refusal);

}  // namespace ringcast::tls13
