#include "config/parse_config.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <ostream>
#include <string_view>

#include <fmt/format.h>
#include <boost/program_options.hpp>

#include "config/config_file.hpp"
#include "config/config_flags.hpp"
#include "config/config_secrets.hpp"
#include "config/flag_error.hpp"
#include "config/flag_table.hpp"
#include "generated/version.hpp"
#include "protocol/flag_parser_error.hpp"
#include "protocol/handover_version.hpp"

namespace ringcast {
namespace {

namespace po = boost::program_options;

constexpr const char* help_hint = "run 'ringcast --help' for the list of flags";

void resolve_tls(const po::variables_map& vm, config& cfg) {
  const bool cert = vm.count("tls-cert") > 0, key = vm.count("tls-key") > 0;
  if (cert != key) bad_flag(cert ? "tls-cert" : "tls-key", "needs --tls-cert and --tls-key both");
  if (!cert) return;
  cfg.tls_cert_file = text_of(vm, "tls-cert");
  cfg.tls_key_file = text_of(vm, "tls-key");
  cfg.secret_files.push_back({"tls-key", cfg.tls_key_file});
  // OpenSSL reports a missing file as "error 0x80000002"; say it in words first.
  for (const char* flag : {"tls-cert", "tls-key"}) {
    const std::string& path = text_of(vm, flag);
    if (std::ifstream probe(path); !probe)
      bad_flag(flag, fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
  }
}

// Every flag of the table that has a `read`, in the table's order, then the flags read together,
// then every flag's `check` against the others.
config build_config(const po::variables_map& vm,
                    const std::function<const char*(const char*)>& getenv) {
  config cfg;
  for (const auto& group : flag_table()) {
    for (const flag& f : group.flags) {
      const std::string name(f.name);
      if (!f.read || !vm.count(name)) continue;
      f.read(f.value_name.empty() ? std::string{} : text_of(vm, name.c_str()), cfg);
    }
  }
  resolve_admin_token(vm, getenv, cfg);
  resolve_redis_password(vm, cfg);
  resolve_client_tokens(vm, getenv, cfg);
  resolve_tls(vm, cfg);
  resolve_hook_secret(vm, cfg);
  resolve_pusher_app(vm, getenv, cfg);
  for (const auto& group : flag_table())
    for (const flag& f : group.flags)
      if (f.check) f.check(cfg);
  return cfg;
}

// Stores the settings of --config FILE under those of the command line, which win (program_options
// keeps the first value stored). Returns, by name, the file's line of each setting it stored.
std::map<std::string, config_file_entry> merge_config_file(const po::options_description& flags,
                                                           po::variables_map& vm) {
  auto kind_of = [](std::string_view name) {
    const flag* f = find_flag(name);
    if (!f) return setting_kind::unknown;
    if (!f->in_file) return setting_kind::not_allowed;
    return f->value_name.empty() ? setting_kind::switch_ : setting_kind::value;
  };
  auto entries = read_config_file(text_of(vm, "config"), kind_of);
  if (!entries) throw flag_error(entries.error);
  po::parsed_options from_file(&flags);
  std::map<std::string, config_file_entry> origin;
  for (auto& entry : *entries.value) {
    if (vm.count(entry.name) && !vm[entry.name].defaulted()) continue;
    std::vector<std::string> value;
    if (kind_of(entry.name) == setting_kind::value) value.push_back(entry.value);
    from_file.options.emplace_back(entry.name, std::move(value));
    origin.emplace(entry.name, std::move(entry));
  }
  po::store(from_file, vm);
  return origin;
}

// Whether the file sets a secret itself (rather than naming a file that holds it): the file is then
// as secret as the secret, and checked like the secret files at start-up.
bool holds_a_secret(const std::map<std::string, config_file_entry>& from_file) {
  for (const auto& [name, entry] : from_file)
    if (find_flag(name)->secret) return true;
  const auto redis = from_file.find("redis");  // a password in the URL: user:password@host
  return redis != from_file.end() && redis->second.value.find('@') != std::string::npos;
}

}  // namespace

config_outcome parse_config(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
                            const std::function<const char*(const char*)>& getenv) {
  const po::options_description flags = describe_flags();
  // No abbreviations: "--heart" silently meaning "--heartbeat" would hide typos in scripts.
  constexpr int style =
      po::command_line_style::default_style & ~po::command_line_style::allow_guessing;
  std::map<std::string, config_file_entry> from_file;
  std::string file;
  try {
    const auto parsed = po::command_line_parser(argc, argv).options(flags).style(style).run();
    // Without a positional description, program_options passes stray words through silently.
    const auto stray = po::collect_unrecognized(parsed.options, po::include_positional);
    if (!stray.empty())
      throw flag_error(fmt::format("unexpected argument '{}'; {}", stray.front(), help_hint));
    po::variables_map vm;
    po::store(parsed, vm);
    if (vm.count("help")) {
      out << "Usage: ringcast [flags]\n\n"
             "A long-connection push server: WebSocket, Server-Sent Events and long-poll.\n"
             "DURATION is whole seconds (25) or a number with a unit: 500ms, 25s, 2m, 1h.\n\n"
          << help_text();
      return {std::nullopt, 0};
    }
    if (vm.count("version")) {
      // The second line tells an upgrading server whether this binary reads its state.
      out << "ringcast " << project_version << "\nstate format " << handover_format << "\n";
      return {std::nullopt, 0};
    }
    if (vm.count("config")) {
      file = text_of(vm, "config");
      from_file = merge_config_file(flags, vm);
    }
    config cfg = build_config(vm, getenv);
    cfg.config_file = file;
    if (holds_a_secret(from_file)) cfg.secret_files.push_back({"config", file});
    return {std::move(cfg), 0};
  } catch (const po::unknown_option& e) {
    err << fmt::format("ringcast: unknown flag '{}'; {}\n", e.get_option_name(), help_hint);
  } catch (const po::multiple_occurrences& e) {
    err << fmt::format("ringcast: {}: given more than once\n", e.get_option_name());
  } catch (const po::error& e) {
    err << fmt::format("ringcast: {}; {}\n", flag_parser_error(e, argc, argv), help_hint);
  } catch (const flag_error& e) {
    if (const auto entry = from_file.find(e.flag); entry != from_file.end()) {
      err << fmt::format("ringcast: {}:{}: {}: {}\n", file, entry->second.line, e.flag, e.why);
    } else {
      err << fmt::format("ringcast: {}\n", e.what());
    }
  }
  return {std::nullopt, 2};
}

}  // namespace ringcast
