// An admitted connect becomes its transport's subscriber, on the loop that holds its user's
// sessions (core/home_slots.hpp): mostly the loop that read it; handed to another loop first if
// that one holds the user's slot, and with --redis claimed from other nodes.
#pragma once

#include "net/admission.hpp"
#include "net/connection_parts.hpp"

namespace ringcast {

// A connect that would create a session beyond --max-sessions is answered 503 `overloaded`, one
// beyond --max-sessions-per-user with every session of the user live 429 `too_many`, both with
// Retry-After, through `answer`.
void start_client(connection_context& ctx, connection_parts parts, admission admitted,
                  http_resume resume, http_refusal answer);

}  // namespace ringcast
