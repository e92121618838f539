// The secrets of the config: the admin token and the client-token key, each from a flag, a file
// or the environment. Errors are thrown as flag_error (flag_error.hpp).
#pragma once

#include <functional>

#include <boost/program_options/variables_map.hpp>

#include "config.hpp"

namespace ringcast {

// --admin-token, --admin-token-file, then $RINGCAST_ADMIN_TOKEN if non-empty, else 32 random hex
// characters with admin_token_generated set.
void resolve_admin_token(const boost::program_options::variables_map& vm,
                         const std::function<const char*(const char*)>& getenv, config& cfg);
// --client-secret(-file) or $RINGCAST_CLIENT_SECRET, or --client-public-key; --require-exp,
// --client-audience, --client-issuer.
void resolve_client_tokens(const boost::program_options::variables_map& vm,
                           const std::function<const char*(const char*)>& getenv, config& cfg);

}  // namespace ringcast
