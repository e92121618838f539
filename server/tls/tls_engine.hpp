// What carries a net_stream's TLS, in one pointer: nothing (plain TCP), OpenSSL's SSL (during the
// handshake, and for TLS 1.2 throughout), or ringcast's record layer (TLS 1.3 after its
// handshake, record_stream.hpp). The kind is the pointer's low bit, so that every connection,
// plain ones too, pays one word for TLS as it did before the record layer came.
#pragma once

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <utility>

#include "tls/record_stream.hpp"
#include "tls/tls_context.hpp"

namespace ringcast {

class tls_engine {
 public:
  tls_engine() = default;
  explicit tls_engine(tls_session ssl) : bits_(reinterpret_cast<std::uintptr_t>(ssl.release())) {
    if (is_records()) std::abort();  // OpenSSL allocates with malloc: never an odd address
  }
  explicit tls_engine(std::unique_ptr<record_stream> records)
      : bits_(records ? reinterpret_cast<std::uintptr_t>(records.release()) | records_bit : 0) {}
  tls_engine(tls_engine&& other) noexcept : bits_(std::exchange(other.bits_, 0)) {}
  tls_engine& operator=(tls_engine&& other) noexcept {
    if (this != &other) {
      reset();
      bits_ = std::exchange(other.bits_, 0);
    }
    return *this;
  }
  tls_engine(const tls_engine&) = delete;
  tls_engine& operator=(const tls_engine&) = delete;
  ~tls_engine() { reset(); }

  explicit operator bool() const { return bits_ != 0; }
  // OpenSSL's SSL, or null (plain, or the record layer carries the records).
  ssl_st* ssl() const { return is_records() ? nullptr : reinterpret_cast<ssl_st*>(bits_); }
  // The record layer, or null.
  record_stream* records() const {
    return is_records() ? reinterpret_cast<record_stream*>(bits_ & ~records_bit) : nullptr;
  }

  void reset() {
    if (record_stream* r = records()) {
      delete r;
    } else if (ssl_st* s = ssl()) {
      tls_session_free{}(s);
    }
    bits_ = 0;
  }

 private:
  // SSL objects come from OpenSSL's allocator (malloc: 16-byte aligned), record streams from new.
  static constexpr std::uintptr_t records_bit = 1;
  static_assert(alignof(record_stream) > records_bit);

  bool is_records() const { return (bits_ & records_bit) != 0; }

  std::uintptr_t bits_ = 0;
};

}  // namespace ringcast
