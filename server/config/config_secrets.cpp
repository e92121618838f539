#include "config/config_secrets.hpp"

#include <algorithm>
#include <fstream>
#include <random>
#include <sstream>

#include <sys/stat.h>

#include <fmt/ranges.h>

#include "config/config_file.hpp"
#include "config/flag_error.hpp"

namespace ringcast {

// The token travels in an Authorization header, so it must be a single visible-ASCII word.
namespace {

constexpr const char* token_env = "RINGCAST_ADMIN_TOKEN";
constexpr const char* client_secret_env = "RINGCAST_CLIENT_SECRET";
constexpr const char* pusher_secret_env = "RINGCAST_PUSHER_SECRET";

bool valid_token(std::string_view token) {
  return !token.empty() &&
         std::all_of(token.begin(), token.end(), [](char c) { return c > ' ' && c < 0x7f; });
}

std::string random_token() {
  std::random_device random;
  std::string token;
  for (int i = 0; i < 16; ++i)
    token += fmt::format("{:02x}", random() & 0xffu);
  return token;
}

}  // namespace

void resolve_admin_token(const po::variables_map& vm,
                         const std::function<const char*(const char*)>& getenv, config& cfg) {
  if (vm.count("admin-token") && vm.count("admin-token-file"))
    bad_flag("admin-token-file", "give either --admin-token or --admin-token-file, not both");
  if (vm.count("admin-token-file")) {
    auto secret = read_secret_file(text_of(vm, "admin-token-file"));
    if (!secret) bad_flag("admin-token-file", secret.error);
    cfg.secret_files.push_back({"admin-token-file", text_of(vm, "admin-token-file")});
    cfg.admin_token = std::move(*secret.value);
    if (!valid_token(cfg.admin_token))
      bad_flag("admin-token-file", "expected printable ASCII without spaces");
    return;
  }
  if (vm.count("admin-token")) {
    cfg.admin_token = text_of(vm, "admin-token");
    if (!valid_token(cfg.admin_token))
      bad_flag("admin-token", "expected printable ASCII without spaces");
    return;
  }
  // An empty variable counts as unset, as shells make it easy to export one by accident.
  if (const char* env = getenv(token_env); env && *env) {
    cfg.admin_token = env;
    if (!valid_token(cfg.admin_token))
      throw flag_error(fmt::format("{}: expected printable ASCII without spaces", token_env));
    return;
  }
  cfg.admin_token = random_token();
  cfg.admin_token_generated = true;
}

void resolve_client_tokens(const po::variables_map& vm,
                           const std::function<const char*(const char*)>& getenv, config& cfg) {
  const bool allow_without_exp = vm.count("allow-tokens-without-exp") > 0;
  if (allow_without_exp && vm.count("require-exp"))
    bad_flag("allow-tokens-without-exp", "give either it or --require-exp, not both");
  std::string secret;
  if (vm.count("client-secret") && vm.count("client-secret-file"))
    bad_flag("client-secret-file", "give either --client-secret or --client-secret-file, not both");
  if (vm.count("client-secret")) {
    secret = text_of(vm, "client-secret");
    if (secret.empty()) bad_flag("client-secret", "expected a non-empty secret");
  } else if (vm.count("client-secret-file")) {
    auto read = read_secret_file(text_of(vm, "client-secret-file"));
    if (!read) bad_flag("client-secret-file", read.error);
    secret = std::move(*read.value);
    cfg.secret_files.push_back({"client-secret-file", text_of(vm, "client-secret-file")});
  } else if (const char* env = getenv(client_secret_env); env && *env) {
    secret = env;
  }
  if (vm.count("client-public-key")) {
    const std::string& path = text_of(vm, "client-public-key");
    if (!secret.empty())
      bad_flag("client-public-key", "give either a client secret or a public key, not both");
    std::ifstream file(path, std::ios::binary);
    std::ostringstream pem;
    pem << file.rdbuf();
    if (!file || pem.str().empty())
      bad_flag("client-public-key", fmt::format("cannot read '{}'", path));
    cfg.client_public_key_file = path;
    cfg.client_public_key_pem = pem.str();
  } else if (!secret.empty()) {
    cfg.client_secret = std::move(secret);
  } else if (allow_without_exp || vm.count("require-exp")) {
    bad_flag(allow_without_exp ? "allow-tokens-without-exp" : "require-exp",
             "needs --client-secret or --client-public-key");
  }
  cfg.require_exp = !allow_without_exp;
  for (const char* flag : {"client-audience", "client-issuer"}) {
    if (!vm.count(flag)) continue;
    if (!cfg.client_tokens()) bad_flag(flag, "needs --client-secret or --client-public-key");
    if (text_of(vm, flag).empty()) bad_flag(flag, "expected a non-empty value");
  }
  if (vm.count("client-audience")) cfg.client_audience = text_of(vm, "client-audience");
  if (vm.count("client-issuer")) cfg.client_issuer = text_of(vm, "client-issuer");
}

void resolve_hook_secret(const po::variables_map& vm, config& cfg) {
  if (vm.count("hook-secret") && vm.count("hook-secret-file"))
    bad_flag("hook-secret-file", "give either --hook-secret or --hook-secret-file, not both");
  const char* flag = vm.count("hook-secret") ? "hook-secret" : "hook-secret-file";
  if (!vm.count(flag)) return;
  if (!cfg.hook_url && !cfg.connect_hook) bad_flag(flag, "needs --hook-url or --connect-hook");
  if (vm.count("hook-secret")) {
    cfg.hook_secret = text_of(vm, "hook-secret");
    if (cfg.hook_secret.empty()) bad_flag("hook-secret", "expected a non-empty secret");
    return;
  }
  auto read = read_secret_file(text_of(vm, "hook-secret-file"));
  if (!read) bad_flag("hook-secret-file", read.error);
  cfg.hook_secret = std::move(*read.value);
  cfg.secret_files.push_back({"hook-secret-file", text_of(vm, "hook-secret-file")});
}

void resolve_redis_password(const po::variables_map& vm, config& cfg) {
  if (!vm.count("redis-password-file")) return;
  if (!cfg.redis) bad_flag("redis-password-file", "needs --redis");
  if (!cfg.redis->password.empty())
    bad_flag("redis-password-file",
             "the --redis URL has a password already; give it in one place, not both");
  auto read = read_secret_file(text_of(vm, "redis-password-file"));
  if (!read) bad_flag("redis-password-file", read.error);
  cfg.redis->password = std::move(*read.value);
  cfg.secret_files.push_back({"redis-password-file", text_of(vm, "redis-password-file")});
}

void resolve_pusher_app(const po::variables_map& vm,
                        const std::function<const char*(const char*)>& getenv, config& cfg) {
  if (vm.count("pusher-secret") && vm.count("pusher-secret-file"))
    bad_flag("pusher-secret-file", "give either --pusher-secret or --pusher-secret-file, not both");
  std::string secret_source = "--pusher-secret";
  if (vm.count("pusher-secret")) {
    cfg.pusher_secret = text_of(vm, "pusher-secret");
    if (cfg.pusher_secret.empty()) bad_flag("pusher-secret", "expected a non-empty secret");
  } else if (vm.count("pusher-secret-file")) {
    auto read = read_secret_file(text_of(vm, "pusher-secret-file"));
    if (!read) bad_flag("pusher-secret-file", read.error);
    cfg.pusher_secret = std::move(*read.value);
    cfg.secret_files.push_back({"pusher-secret-file", text_of(vm, "pusher-secret-file")});
    secret_source = "--pusher-secret-file";
  } else if (const char* env = getenv(pusher_secret_env); env && *env) {
    cfg.pusher_secret = env;
    secret_source = fmt::format("${}", pusher_secret_env);
  }
  const bool id = !cfg.pusher_app_id.empty(), key = !cfg.pusher_key.empty(),
             secret = !cfg.pusher_secret.empty();
  if ((id || key || secret) && !(id && key && secret)) {
    std::vector<std::string> given, missing;
    (id ? given : missing).emplace_back("--pusher-app-id");
    (key ? given : missing).emplace_back("--pusher-key");
    (secret ? given : missing).push_back(secret ? secret_source : "--pusher-secret");
    throw flag_error(fmt::format(
        "the Pusher door needs --pusher-app-id, --pusher-key and --pusher-secret together: {} "
        "given without {}",
        fmt::join(given, " and "), fmt::join(missing, " and ")));
  }
  for (const char* flag : {"pusher-client-events", "pusher-webhook-url"})
    if (vm.count(flag) && !cfg.pusher())
      bad_flag(flag, "needs --pusher-app-id, --pusher-key and --pusher-secret");
}

std::vector<std::string> secret_file_warnings(const config& cfg, unsigned own_group) {
  std::vector<std::string> warnings;
  for (const auto& [flag, path] : cfg.secret_files) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) continue;  // read at start-up; gone since: nothing to say
    const unsigned mode = st.st_mode & 0777u;
    const bool others = (mode & 007u) != 0;
    const bool group = (mode & 070u) != 0 && st.st_gid != own_group;
    if (!others && !group) continue;
    warnings.push_back(fmt::format(
        "--{}: {} is readable by group or others (mode {:04o}); chmod 600 it", flag, path, mode));
  }
  return warnings;
}

}  // namespace ringcast
