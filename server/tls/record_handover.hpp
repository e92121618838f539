// From OpenSSL's finished TLS 1.3 server handshake to ringcast's own record layer
// (record_stream.hpp), so that the SSL object (about 14 KB per connection) can be freed.
//
// OpenSSL 3.0 has no public call that returns the application traffic secrets; it gives them to
// a context's keylog callback (CLIENT_TRAFFIC_SECRET_0, SERVER_TRAFFIC_SECRET_0) as the
// handshake derives them. capture_traffic_secrets installs one that keeps them, cleared on
// SSL_free, with the SSL they belong to, and take_over builds the record layer from them.
#pragma once

#include <memory>

#include "tls/record_stream.hpp"

struct ssl_ctx_st;
struct ssl_st;

namespace ringcast {

// Server contexts: keep each TLS 1.3 connection's application traffic secrets with its SSL.
void capture_traffic_secrets(ssl_ctx_st* ctx);

// The record layer of `ssl`, whose server handshake has just completed, or null when OpenSSL
// must stay: TLS 1.2, a suite the record layer does not have, no secrets captured, or OpenSSL
// already holding bytes past the client's Finished (it reads exactly one record at a time, as
// read_ahead is off, so this does not happen; were it to, those bytes would be lost on a
// switch). Both directions start at sequence number 0: the server has sent no record under the
// application keys (no session tickets) and the client's first application record is its
// first. The caller frees `ssl` after a switch.
std::unique_ptr<record_stream> take_over(ssl_st* ssl);

}  // namespace ringcast
