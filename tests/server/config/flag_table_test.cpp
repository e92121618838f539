// The flag table (server/config/flag_table.cpp): every entry round-trips. Given on the command
// line it changes its own setting and no other; set in a --config file it lands in the same
// setting; changed in that file under a running server, SIGHUP's diff names it, applied when the
// table says it is live (and then taken), else left for a restart. --help lists it.
#include "config/flag_table.hpp"

#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "config/config_flags.hpp"
#include "config/config_reload.hpp"
#include "parse_config_run.hpp"

namespace ringcast {
namespace {

using test::run;
using test::temp_dir;

// A value each flag can take other than its default, with the flags it needs beside it.
struct example {
  std::string value;                                           // empty for a switch
  std::vector<std::pair<std::string, std::string>> with = {};  // needed beside it
  std::string before = {};    // its value in the running config, when it needs one
  std::string lands_as = {};  // the setting it changes when not its own (a secret's file)
  bool inert = false;         // kept so that old command lines start: it asks for the default
};

// One entry per flag of the table (the test says which is missing); `dir` holds the files.
std::map<std::string, example> examples(const temp_dir& dir) {
  const std::string secret = dir.write("secret", "s3cr3t\n");
  const std::string pem = dir.write("key.pem", "-----BEGIN PUBLIC KEY-----\n");
  const std::pair<std::string, std::string> hook{"hook-url", "http://127.0.0.1:9/h"},
      client{"client-secret", "s"};
  // The Pusher door opens with its three settings together.
  const std::pair<std::string, std::string> pusher_id{"pusher-app-id", "1"},
      pusher_key{"pusher-key", "k1"}, pusher_secret{"pusher-secret", "s1"};
  const std::string old_secret = dir.write("old-secret", "older\n");
  return {
      {"listen", {"127.0.0.1:9999"}},
      {"threads", {"1000"}},
      {"web-root", {dir.path()}},
      {"demo", {""}},
      {"trusted-proxy", {"10.0.0.0/8"}},
      {"poll-timeout", {"7s"}},
      {"heartbeat", {"7s"}},
      {"idle-timeout", {"7s"}},
      {"session-ttl", {"7s"}},
      {"first-poll-ttl", {"7s"}},
      {"handshake-timeout", {"7s"}},
      {"keepalive-timeout", {"7s"}},
      {"write-timeout", {"7s"}},
      {"max-connection-age", {"7s"}},
      {"drain", {"7s"}},
      {"reconnect-delay", {"7s"}},
      {"tick-ms", {"50"}},
      {"wheel-slots", {"1024"}},
      {"history", {"7"}},
      {"max-queue", {"7"}},
      {"max-body", {"7"}},
      {"max-connections", {"7"}},
      {"max-connections-per-ip", {"7"}},
      {"connect-rate-per-ip", {"7"}},
      {"client-message-rate", {"7"}},
      {"max-sessions", {"7"}},
      {"max-sessions-per-user", {"7"}},
      {"max-poll-batch", {"7"}},
      {"compression", {"off"}},
      {"compress-min-bytes", {"7"}},
      {"admin-token", {"t0k3n"}},
      {"admin-token-file", {secret, {}, {}, "admin-token"}},
      {"client-secret", {"s"}},
      {"client-secret-file", {secret, {}, {}, "client-secret"}},
      {"client-public-key", {pem}},
      {"require-exp", {"", {client}, {}, {}, true}},
      {"allow-tokens-without-exp", {"", {client}}},
      {"ipv6-prefix", {"56"}},
      {"send-buffer", {"65536"}},
      {"client-audience", {"shop", {client}}},
      {"client-issuer", {"me", {client}}},
      {"allowed-origins", {"https://a.example"}},
      {"allowed-hosts", {"a.example"}},
      {"tls-cert", {secret, {{"tls-key", pem}}, pem}},
      {"tls-key", {secret, {{"tls-cert", pem}}, pem}},
      {"hsts", {"1h"}},
      {"redis", {"redis://127.0.0.1:6380"}},
      {"redis-password-file", {secret, {{"redis", "redis://127.0.0.1:6379"}}, {}, "redis"}},
      {"hook-url", {"http://127.0.0.1:9/h"}},
      {"hook-secret", {"s", {hook}}},
      {"hook-secret-file", {secret, {hook}, {}, "hook-secret"}},
      {"hook-ca", {"/etc/ringcast/ca.pem"}},
      {"hook-batch", {"7"}},
      {"hook-flush", {"7s"}},
      {"hook-timeout", {"7s"}},
      {"connect-hook", {"http://127.0.0.1:9/c"}},
      {"connect-hook-fallback", {"allow"}},
      {"connect-hook-concurrency", {"7"}},
      {"hook-queue", {"7"}},
      {"max-spread", {"7s"}},
      {"max-scheduled", {"7"}},
      {"max-sticky", {"7"}},
      {"log-level", {"warn"}},
      {"pusher-app-id", {"7", {pusher_key, pusher_secret}, "1"}},
      {"pusher-key", {"k2", {pusher_id, pusher_secret}, "k1"}},
      {"pusher-secret", {"s2", {pusher_id, pusher_key}, "s1"}},
      {"pusher-secret-file", {secret, {pusher_id, pusher_key}, old_secret, "pusher-secret"}},
      {"pusher-client-events", {"", {pusher_id, pusher_key, pusher_secret}}},
      {"pusher-webhook-url",
       {"http://127.0.0.1:9/p,https://hooks.example/p", {pusher_id, pusher_key, pusher_secret}}},
      {"upgrade-binary", {"/opt/ringcast-next"}},
      {"upgrade-check-timeout", {"7s"}},
  };
}

using settings = std::vector<std::pair<std::string, std::string>>;

std::vector<std::string> command_line(const settings& given) {
  std::vector<std::string> args;
  for (const auto& [name, value] : given) {
    args.push_back("--" + name);
    if (!value.empty()) args.push_back(value);
  }
  return args;
}

std::string file_text(const settings& given) {
  std::string text;
  for (const auto& [name, value] : given)
    text += name + " = " + (value.empty() ? "true" : value) + "\n";
  return text;
}

std::vector<const flag*> every_flag() {
  std::vector<const flag*> all;
  for (const auto& group : flag_table())
    for (const flag& f : group.flags)
      all.push_back(&f);
  return all;
}

TEST(FlagTable, EveryFlagRoundTripsThroughCommandLineFileAndReload) {
  temp_dir dir;
  const auto all = examples(dir);
  const char* const no_env = nullptr;
  auto getenv = [no_env](const char*) { return no_env; };
  for (const flag* f : every_flag()) {
    if (!f->in_file) continue;
    const std::string name(f->name);
    SCOPED_TRACE("--" + name);
    const auto found = all.find(name);
    ASSERT_NE(found, all.end()) << "give --" << name << " an example in this test";
    const example& ex = found->second;
    const std::string lands = ex.lands_as.empty() ? name : ex.lands_as;

    settings base = ex.with, given = ex.with;
    if (!ex.before.empty()) base.emplace_back(name, ex.before);
    given.emplace_back(name, ex.value);
    if (ex.inert) {
      const run without(command_line(base)), with(command_line(given));
      ASSERT_TRUE(with.outcome.cfg) << with.err;
      EXPECT_EQ(settings_changed(without.cfg(), with.cfg()), std::vector<std::string>{});
      continue;
    }

    // The command line: the flag changes its own setting and no other.
    const run without(command_line(base)), with(command_line(given));
    ASSERT_TRUE(without.outcome.cfg) << without.err;
    ASSERT_TRUE(with.outcome.cfg) << with.err;
    EXPECT_EQ(settings_changed(without.cfg(), with.cfg()), std::vector<std::string>{lands});

    // The file: the same setting as the command line.
    const std::string file = dir.write("ringcast.conf", file_text(given));
    const run from_file({"--config", file});
    ASSERT_TRUE(from_file.outcome.cfg) << from_file.err;
    EXPECT_EQ(settings_changed(with.cfg(), from_file.cfg()), std::vector<std::string>{});

    // SIGHUP: the file changed under a running server. A file must set something (an empty one
    // is refused), so a base without settings sets the log level to its default.
    settings base_file = base;
    if (base_file.empty())
      base_file.emplace_back(name == "log-level" ? "drain" : "log-level",
                             name == "log-level" ? "5s" : "info");
    dir.write("ringcast.conf", file_text(base_file));
    const run running({"--config", file});
    ASSERT_TRUE(running.outcome.cfg) << running.err;
    dir.write("ringcast.conf", file_text(given));
    const char* argv[] = {"ringcast", "--config", file.c_str()};
    const auto report = check_reload(running.cfg(), 3, argv, getenv);
    ASSERT_TRUE(report.ok);
    const bool live = find_flag(lands)->apply_live != nullptr;
    EXPECT_EQ(report.lines,
              std::vector<std::string>{
                  live ? "SIGHUP: '" + lands + "' changed: applied"
                       : "SIGHUP: '" + lands +
                             "' changed but cannot change while running; it takes effect at the "
                             "next restart"});
    ASSERT_EQ(report.apply.has_value(), live);
    if (live) {
      EXPECT_EQ(settings_changed(*report.apply, from_file.cfg()), std::vector<std::string>{});
    }
  }
}

TEST(FlagTable, EveryFlagIsInHelpAndOnlyTheCommandLineOnesStayOutOfFiles) {
  const std::string help = help_text();
  temp_dir dir;
  for (const flag* f : every_flag()) {
    const std::string name(f->name);
    EXPECT_NE(help.find("--" + name + (f->value_name.empty() ? "" : " ")), std::string::npos)
        << name;
    if (f->in_file) continue;
    const std::string file = dir.write("ringcast.conf", name + " = x\n");
    const run r({"--config", file});
    EXPECT_EQ(r.err, "ringcast: " + file + ":1: '" + name + "' is a command-line flag only\n");
  }
}

TEST(FlagTable, NamesAreUniqueAndFound) {
  std::map<std::string_view, int> seen;
  for (const flag* f : every_flag()) {
    EXPECT_EQ(++seen[f->name], 1) << f->name;
    EXPECT_EQ(find_flag(f->name), f);
  }
  EXPECT_EQ(find_flag("heartbeats"), nullptr);
}

}  // namespace
}  // namespace ringcast
