#include "tls/tls_errors.hpp"

#include <openssl/err.h>

#include <string>

#include <fmt/format.h>

namespace ringcast {

namespace {

// Boost's error_category has a non-virtual destructor by design (categories are never deleted
// through a base pointer).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wnon-virtual-dtor"
class tls_error_category final : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "tls"; }
  std::string message(int value) const override {
    switch (static_cast<tls_errc>(value)) {
      case tls_errc::plain_http:
        return "plaintext HTTP sent to a TLS port";
      case tls_errc::not_tls:
        return "not a TLS handshake";
      case tls_errc::record_refused:
        return "TLS record refused";
      case tls_errc::peer_alert:
        return "the peer sent a fatal TLS alert";
      case tls_errc::key_update_limit:
        return "too many TLS KeyUpdates from the peer";
      case tls_errc::empty_record_limit:
        return "too many empty TLS records in a row from the peer";
    }
    const char* reason = ERR_reason_error_string(static_cast<unsigned long>(value));
    return reason ? reason : fmt::format("OpenSSL error {:#x}", value);
  }
};
#pragma GCC diagnostic pop

}  // namespace

const boost::system::error_category& tls_category() {
  static const tls_error_category category;
  return category;
}

boost::system::error_code make_error_code(tls_errc e) {
  return {static_cast<int>(e), tls_category()};
}

boost::system::error_code last_tls_error() {
  const unsigned long e = ERR_get_error();
  ERR_clear_error();
  // Packed OpenSSL 3 codes fit in 31 bits; 0 would read as success.
  return {e ? static_cast<int>(e & 0x7fffffff) : static_cast<int>(ERR_PACK(ERR_LIB_SSL, 0, 1)),
          tls_category()};
}

}  // namespace ringcast
