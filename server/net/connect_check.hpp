// An admitted connect put to the connect hook (--connect-hook), on the loop that read it: the
// backend's verdict turns it into the admission to start (its user and channels possibly set by
// the backend) or into the refusal to send: 403 forbidden as for a client token that does not
// allow it, 503 + Retry-After when the backend did not answer (or, with --connect-hook-fallback
// allow, the admission unchanged), 503 when its answer made no sense or when
// --connect-hook-concurrency connects are already being asked about (never a guess).
#pragma once

#include <functional>
#include <string>
#include <variant>

#include "hooks/connect_gate.hpp"
#include "net/admission.hpp"

namespace ringcast {

void check_with_backend(connection_context& ctx, connect_gate& gate, admission admitted,
                        std::string remote_addr,
                        std::function<void(std::variant<admission, http_response>)> done);

}  // namespace ringcast
