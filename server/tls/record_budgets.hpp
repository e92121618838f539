// What a TLS peer may make the record layer do that gives the reader nothing, each bounded so that
// the bound never relies on the peer's good behaviour (docs/security.md, the budget table):
// KeyUpdates, each a key derivation on the loop (about 10 µs), and records that carry no
// application bytes, each an AEAD open. record_stream keeps one of each per connection; the
// clock is the caller's (record_stream passes the steady clock's seconds, tests a simulated one).
#pragma once

#include <cstdint>

namespace ringcast {

// At most per_window KeyUpdates in a window of window_seconds that begins with the first one after
// the last window ended (GnuTLS keeps such a window too): at most twice per_window in any span of
// window_seconds.
class key_update_budget {
 public:
  static constexpr std::uint8_t per_window = 16;
  static constexpr std::uint32_t window_seconds = 60;

  // Counts one KeyUpdate at `now_seconds` (any epoch; never going back): false once the window's
  // budget is spent (the KeyUpdate is not counted).
  bool take(std::uint32_t now_seconds);

 private:
  std::uint32_t window_start_ = 0;  // meaningful while taken_ > 0
  std::uint8_t taken_ = 0;
};

// Records in a row that carry no application bytes: application data with no content, or with
// only padding (RFC 8446 section 5.4 allows both). OpenSSL allows 32 of them in a row
// (MAX_EMPTY_RECORDS, ssl/record/) and fails the next with SSL_R_RECORD_TOO_SMALL and an
// unexpected_message alert; ringcast takes the same number. A record with application bytes
// starts the count again; KeyUpdates have their own budget and neither count nor restart it.
class empty_record_budget {
 public:
  static constexpr std::uint8_t most_in_a_row = 32;

  // Counts one empty record: false once more than most_in_a_row came in a row.
  bool take() {
    if (in_a_row_ == most_in_a_row) return false;
    ++in_a_row_;
    return true;
  }
  void saw_application_bytes() { in_a_row_ = 0; }

 private:
  std::uint8_t in_a_row_ = 0;
};

}  // namespace ringcast
