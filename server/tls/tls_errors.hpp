// The error codes of TLS connections: OpenSSL's (the value is its packed error code) and
// ringcast's own (tls_errc).
#pragma once

#include <boost/system/error_code.hpp>

namespace ringcast {

// The category of both: OpenSSL's errors, and ringcast's own (what arrives on a TLS port before
// the handshake, and what ends a connection in its record layer).
const boost::system::error_category& tls_category();

enum class tls_errc {
  plain_http = 1,    // the first bytes are a plaintext HTTP request
  not_tls,           // the first byte cannot start a TLS handshake
  record_refused,    // ringcast's record layer refused a record (a fatal alert went out) or failed
  peer_alert,        // the peer ended the connection with a fatal alert
  key_update_limit,  // the peer sent KeyUpdates faster than record_stream takes them (it was sent
                     // an unexpected_message alert)
  empty_record_limit,  // the peer sent more records in a row with no application bytes than
                       // record_stream takes (it was sent an unexpected_message alert)
};
boost::system::error_code make_error_code(tls_errc e);

// The oldest error in this thread's OpenSSL queue (the queue is then cleared).
boost::system::error_code last_tls_error();

}  // namespace ringcast

template <>
struct boost::system::is_error_code_enum<ringcast::tls_errc> : std::true_type {};
