// An admitted connect becomes its transport's subscriber, on the loop that holds its session:
// handed there first if another loop read it, and with --redis claimed from other nodes.
#pragma once

#include "admission.hpp"
#include "connection_parts.hpp"

namespace ringcast {

void start_client(connection_context& ctx, connection_parts parts, admission admitted,
                  http_resume resume);

}  // namespace ringcast
