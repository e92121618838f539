// The secrets of the config: the admin token and the client-token key, each from a flag, a file
// or the environment. Errors are thrown as flag_error (flag_error.hpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <boost/program_options/variables_map.hpp>

#include "config/config.hpp"

namespace ringcast {

// --admin-token, --admin-token-file, then $RINGCAST_ADMIN_TOKEN if non-empty, else 32 random hex
// characters with admin_token_generated set.
void resolve_admin_token(const boost::program_options::variables_map& vm,
                         const std::function<const char*(const char*)>& getenv, config& cfg);
// --client-secret(-file) or $RINGCAST_CLIENT_SECRET, or --client-public-key; --require-exp,
// --client-audience, --client-issuer.
void resolve_client_tokens(const boost::program_options::variables_map& vm,
                           const std::function<const char*(const char*)>& getenv, config& cfg);
// --hook-secret or --hook-secret-file (after --hook-url is read).
void resolve_hook_secret(const boost::program_options::variables_map& vm, config& cfg);
// --redis-password-file: the password of the --redis URL (after it is read), which then has none.
void resolve_redis_password(const boost::program_options::variables_map& vm, config& cfg);

// --pusher-secret, --pusher-secret-file, else $RINGCAST_PUSHER_SECRET if non-empty; then the door
// is open only with all three of --pusher-app-id, --pusher-key and a secret (some without the
// others is an error naming what is missing), and --pusher-client-events and
// --pusher-webhook-url need it open.
void resolve_pusher_app(const boost::program_options::variables_map& vm,
                        const std::function<const char*(const char*)>& getenv, config& cfg);

// A warning for each file of `cfg.secret_files` that others may read, or its group when that is
// not `own_group` (the server's: the package's root:ringcast 0640 is how the service reads its
// token), to be logged at start-up: "--tls-key: key.pem is readable by group or others (mode
// 0644); chmod 600 it".
std::vector<std::string> secret_file_warnings(const config& cfg, unsigned own_group);

}  // namespace ringcast
