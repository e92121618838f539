// --config FILE, --admin-token-file, --client-secret-file (server/config/config_file.cpp and the
// merge in parse_config.cpp): the file's settings, the command line over them, and errors that name
// the file and the line.
#include "config/config_file.hpp"

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "config/config_reload.hpp"
#include "parse_config_run.hpp"
#include "protocol/client_auth.hpp"

namespace ringcast {
namespace {

using std::chrono::milliseconds;
using test::run;

using test::temp_dir;

setting_kind kinds(std::string_view name) {
  if (name == "heartbeat" || name == "listen") return setting_kind::value;
  if (name == "demo") return setting_kind::switch_;
  if (name == "help") return setting_kind::not_allowed;
  return setting_kind::unknown;
}

TEST(ConfigText, NamesValuesCommentsAndSwitches) {
  const auto r = parse_config_text(
      "# a comment\n\n  heartbeat =  30s   # trailing comment\nlisten=127.0.0.1:9000\r\n"
      "demo = true\n",
      "f.conf", kinds);
  ASSERT_TRUE(r) << r.error;
  ASSERT_EQ(r.value->size(), 3u);
  EXPECT_EQ((*r.value)[0].name, "heartbeat");
  EXPECT_EQ((*r.value)[0].value, "30s");
  EXPECT_EQ((*r.value)[0].line, 3u);
  EXPECT_EQ((*r.value)[1].name, "listen");
  EXPECT_EQ((*r.value)[1].value, "127.0.0.1:9000");
  EXPECT_EQ((*r.value)[1].line, 4u);
  EXPECT_EQ((*r.value)[2].name, "demo");
  EXPECT_EQ((*r.value)[2].value, "");
}

TEST(ConfigText, SwitchSetToFalseIsLeftOut) {
  const auto r = parse_config_text("demo = false\n", "f.conf", kinds);
  ASSERT_TRUE(r) << r.error;
  EXPECT_TRUE(r.value->empty());
}

TEST(ConfigText, AFileThatSetsNothingIsRefused) {
  for (const char* text : {"", "\n\n", "# listen = 127.0.0.1:8080\n   # nothing else\n"}) {
    const auto r = parse_config_text(text, "f.conf", kinds);
    EXPECT_FALSE(r) << "accepted '" << text << "'";
    EXPECT_EQ(r.error,
              "f.conf: sets nothing (no 'name = value' line); write the settings in it, or leave "
              "out --config");
  }
}

TEST(ConfigText, ErrorsNameFileAndLine) {
  auto error = [](const std::string& text) {
    return parse_config_text(text, "f.conf", kinds).error;
  };
  EXPECT_EQ(error("\nheartbeats = 1s\n"), "f.conf:2: unknown setting 'heartbeats'");
  EXPECT_EQ(error("help = true"), "f.conf:1: 'help' is a command-line flag only");
  EXPECT_EQ(error("heartbeat 30s"), "f.conf:1: expected name = value, got 'heartbeat 30s'");
  EXPECT_EQ(error("heartbeat ="), "f.conf:1: heartbeat: expected a value");
  EXPECT_EQ(error("= 3"), "f.conf:1: expected name = value, got '= 3'");
  EXPECT_EQ(error("--heartbeat = 3"), "f.conf:1: write 'heartbeat' without the dashes");
  EXPECT_EQ(error("[server]\nheartbeat = 3"),
            "f.conf:1: sections are not used; expected name = value, got '[server]'");
  EXPECT_EQ(error("demo = yes"), "f.conf:1: demo: expected true or false, got 'yes'");
  EXPECT_EQ(error("heartbeat = 3\n# again\nheartbeat = 4\n"),
            "f.conf:3: 'heartbeat' is already set on line 1");
}

TEST(SecretFile, FirstLineWithoutLineBreak) {
  temp_dir dir;
  const auto r = read_secret_file(dir.write("s", "s3cret\r\n"));
  ASSERT_TRUE(r) << r.error;
  EXPECT_EQ(*r.value, "s3cret");
}

TEST(SecretFile, EmptyMissingAndSeveralLinesAreErrors) {
  temp_dir dir;
  const auto empty = dir.write("empty", "\n");
  EXPECT_EQ(read_secret_file(empty).error, empty + ": the file is empty");
  const auto two = dir.write("two", "a\nb\n");
  EXPECT_EQ(read_secret_file(two).error, two + ": expected one line");
  EXPECT_EQ(read_secret_file("/nonexistent/secret").error,
            "/nonexistent/secret: No such file or directory");
}

TEST(ConfigFlag, FileSettingsApply) {
  temp_dir dir;
  const auto file = dir.write("ringcast.conf",
                              "# test\nlisten = 127.0.0.2:9000\nheartbeat = 30s\nthreads = 3\n"
                              "max-connections = 500\ndemo = true\nrequire-exp = false\n"
                              "admin-token = fromfile\n");
  const run r({"--config", file});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.cfg().listen_host, "127.0.0.2");
  EXPECT_EQ(r.cfg().listen_port, 9000);
  EXPECT_EQ(r.cfg().heartbeat, milliseconds{30'000});
  EXPECT_EQ(r.cfg().threads, 3u);
  EXPECT_EQ(r.cfg().max_connections, 500u);
  EXPECT_TRUE(r.cfg().demo);
  EXPECT_EQ(r.cfg().admin_token, "fromfile");
  // Unset in the file: the default.
  EXPECT_EQ(r.cfg().idle_timeout, milliseconds{60'000});
}

TEST(ConfigFlag, PerAddressLimitsFromTheFile) {
  temp_dir dir;
  const auto file = dir.write("ringcast.conf",
                              "max-connections-per-ip = 8\nconnect-rate-per-ip = 4\n"
                              "trusted-proxy = 127.0.0.1, 10.0.0.0/8\nclient-message-rate = 20\n");
  const run r({"--config", file});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.cfg().max_connections_per_ip, 8u);
  EXPECT_EQ(r.cfg().connect_rate_per_ip, 4u);
  EXPECT_EQ(r.cfg().trusted_proxies.size(), 2u);
  EXPECT_EQ(r.cfg().client_message_rate, 20u);
  const auto bad = dir.write("bad.conf", "trusted-proxy = 10.0.0.0/99\n");
  const run b({"--config", bad});
  EXPECT_FALSE(b.outcome.cfg);
  EXPECT_EQ(b.err,
            "ringcast: " + bad + ":1: trusted-proxy: '10.0.0.0/99': the prefix must be 0-32\n");
}

TEST(ConfigFlag, CommandLineOverridesFile) {
  temp_dir dir;
  const auto file = dir.write("ringcast.conf", "listen = 127.0.0.2:9000\nheartbeat = 30s\n");
  const run r({"--listen", "127.0.0.1:0", "--config", file, "--heartbeat", "abc"});
  // The command line's bad value is reported as a flag, not as the file's line.
  EXPECT_FALSE(r.outcome.cfg);
  EXPECT_EQ(r.err,
            "ringcast: --heartbeat: expected a duration like 25, 25s, 500ms or 2m, got 'abc'\n");
  const run ok({"--listen", "127.0.0.1:0", "--config", file, "--heartbeat", "40s"},
               {{"RINGCAST_ADMIN_TOKEN", "t"}});
  ASSERT_TRUE(ok.outcome.cfg) << ok.err;
  EXPECT_EQ(ok.cfg().listen_port, 0);
  EXPECT_EQ(ok.cfg().heartbeat, milliseconds{40'000});
}

TEST(ConfigFlag, BadValueInFileNamesFileAndLine) {
  temp_dir dir;
  const auto file = dir.write("ringcast.conf", "# comment\n\nmax-queue = lots\n");
  const run r({"--config", file});
  EXPECT_FALSE(r.outcome.cfg);
  EXPECT_EQ(r.outcome.exit_status, 2);
  EXPECT_EQ(r.err, "ringcast: " + file +
                       ":3: max-queue: expected a whole number of at least 1, "
                       "got 'lots'\n");
}

TEST(ConfigFlag, UnknownKeyNamesFileAndLine) {
  temp_dir dir;
  const auto file = dir.write("ringcast.conf", "heartbeat = 30s\nheart-beat = 30s\n");
  const run r({"--config", file});
  EXPECT_EQ(r.outcome.exit_status, 2);
  EXPECT_EQ(r.err, "ringcast: " + file + ":2: unknown setting 'heart-beat'\n");
  const auto nested = dir.write("nested.conf", "config = " + file + "\n");
  EXPECT_EQ(run({"--config", nested}).err,
            "ringcast: " + nested + ":1: 'config' is a command-line flag only\n");
}

TEST(ConfigFlag, EndlessFileIsRefused) {
  EXPECT_EQ(run({"--config", "/dev/zero"}).err, "ringcast: /dev/zero: larger than 1048576 bytes\n");
  EXPECT_EQ(run({"--admin-token-file", "/dev/zero"}).err,
            "ringcast: --admin-token-file: /dev/zero: larger than 65536 bytes\n");
}

TEST(ConfigFlag, MissingFileSaysWhy) {
  const run r({"--config", "/nonexistent/ringcast.conf"});
  EXPECT_EQ(r.outcome.exit_status, 2);
  EXPECT_EQ(r.err, "ringcast: /nonexistent/ringcast.conf: No such file or directory\n");
}

TEST(SecretFlags, AdminTokenFile) {
  temp_dir dir;
  const auto token = dir.write("admin-token", "0123abcd\n");
  const run r({"--admin-token-file", token}, {{"RINGCAST_ADMIN_TOKEN", "env-loses"}});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.cfg().admin_token, "0123abcd");
  EXPECT_FALSE(r.cfg().admin_token_generated);

  EXPECT_EQ(run({"--admin-token-file", token, "--admin-token", "x"}).err,
            "ringcast: --admin-token-file: give either --admin-token or --admin-token-file, not "
            "both\n");
  const auto spaced = dir.write("spaced", "a b\n");
  EXPECT_EQ(run({"--admin-token-file", spaced}).err,
            "ringcast: --admin-token-file: expected printable ASCII without spaces\n");
  EXPECT_EQ(run({"--admin-token-file", "/nonexistent/t"}).err,
            "ringcast: --admin-token-file: /nonexistent/t: No such file or directory\n");
}

TEST(SecretFlags, AdminTokenFileFromConfigFile) {
  temp_dir dir;
  const auto token = dir.write("admin-token", "t0k3n\n");
  const auto file = dir.write("ringcast.conf", "admin-token-file = " + token + "\n");
  const run r({"--config", file});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.cfg().admin_token, "t0k3n");
  const auto bad = dir.write("bad.conf", "\nadmin-token-file = /nonexistent/t\n");
  EXPECT_EQ(run({"--config", bad}).err, "ringcast: " + bad +
                                            ":2: admin-token-file: /nonexistent/t: No such file or "
                                            "directory\n");
}

TEST(SecretFlags, ClientSecretFile) {
  temp_dir dir;
  const auto secret = dir.write("client-secret", "hs256-secret\n");
  const run r({"--client-secret-file", secret, "--admin-token", "t"});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.cfg().client_secret, "hs256-secret");
  EXPECT_TRUE(r.cfg().client_tokens());
  EXPECT_EQ(run({"--client-secret-file", secret, "--client-secret", "x"}).err,
            "ringcast: --client-secret-file: give either --client-secret or --client-secret-file, "
            "not both\n");
}

TEST(TlsFlags, MissingCertificateSaysNoSuchFile) {
  EXPECT_EQ(run({"--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"}).err,
            "ringcast: --tls-cert: cannot read '/nonexistent/cert.pem': No such file or "
            "directory\n");
}

TEST(Reload, NothingChanged) {
  temp_dir dir;
  const auto file = dir.write("ringcast.conf", "heartbeat = 30s\n");
  const run r({"--config", file});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.cfg().config_file, file);
  const char* argv[] = {"ringcast", "--config", file.c_str()};
  const auto report = check_reload(r.cfg(), 3, argv, [](const char*) { return nullptr; });
  EXPECT_TRUE(report.ok);
  EXPECT_EQ(report.lines, std::vector<std::string>{"SIGHUP: settings read again: nothing changed"});
}

TEST(Reload, ChangesAreNamed) {
  temp_dir dir;
  const auto file = dir.write("ringcast.conf", "heartbeat = 30s\nadmin-token = a\n");
  const run r({"--config", file});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  dir.write("ringcast.conf", "heartbeat = 40s\nadmin-token = b\nmax-queue = 10\n");
  const char* argv[] = {"ringcast", "--config", file.c_str()};
  const auto report = check_reload(r.cfg(), 3, argv, [](const char*) { return nullptr; });
  EXPECT_TRUE(report.ok);
  const std::string tail =
      "' changed but cannot change while running; it takes effect at the next "
      "restart";
  EXPECT_EQ(report.lines, (std::vector<std::string>{"SIGHUP: 'heartbeat" + tail,
                                                    "SIGHUP: 'max-queue' changed: applied",
                                                    "SIGHUP: 'admin-token' changed: applied"}));
  // The live ones are taken; the others keep their running values until a restart.
  ASSERT_TRUE(report.apply);
  EXPECT_EQ(report.apply->max_queue, 10u);
  EXPECT_EQ(report.apply->admin_token, "b");
  EXPECT_EQ(report.apply->heartbeat, std::chrono::seconds(30));
}

TEST(Reload, MaxStickyIsReadFromTheFileAndNeedsARestart) {
  temp_dir dir;
  const auto file = dir.write("ringcast.conf", "max-sticky = 3\n");
  const run r({"--config", file});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.cfg().max_sticky, 3u);
  dir.write("ringcast.conf", "max-sticky = 5\n");
  const char* argv[] = {"ringcast", "--config", file.c_str()};
  const auto report = check_reload(r.cfg(), 3, argv, [](const char*) { return nullptr; });
  EXPECT_TRUE(report.ok);
  EXPECT_EQ(report.lines,
            std::vector<std::string>{"SIGHUP: 'max-sticky' changed but cannot change while "
                                     "running; it takes effect at the next restart"});
  EXPECT_FALSE(report.apply);
}

TEST(Reload, OnlyRestartSettingsChangedAppliesNothing) {
  temp_dir dir;
  const auto file = dir.write("ringcast.conf", "heartbeat = 30s\n");
  const run r({"--config", file});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  dir.write("ringcast.conf", "heartbeat = 40s\n");
  const char* argv[] = {"ringcast", "--config", file.c_str()};
  const auto report = check_reload(r.cfg(), 3, argv, [](const char*) { return nullptr; });
  EXPECT_TRUE(report.ok);
  EXPECT_FALSE(report.apply);
}

// with_live_settings takes exactly the settings live_settings names: after it, only restart
// settings still differ, and every live one that differed is equal.
TEST(Reload, WithLiveSettingsTakesEveryLiveSettingAndNothingElse) {
  const run running({"--admin-token", "a"});
  const run fresh({"--admin-token",
                   "b",
                   "--log-level",
                   "warn",
                   "--max-connections",
                   "7",
                   "--max-body",
                   "100",
                   "--max-queue",
                   "9",
                   "--handshake-timeout",
                   "3s",
                   "--keepalive-timeout",
                   "4s",
                   "--heartbeat",
                   "9s",
                   "--history",
                   "5",
                   "--max-connections-per-ip",
                   "3",
                   "--ipv6-prefix",
                   "56",
                   "--send-buffer",
                   "65536",
                   "--connect-rate-per-ip",
                   "4",
                   "--trusted-proxy",
                   "10.0.0.0/8",
                   "--client-message-rate",
                   "6",
                   "--write-timeout",
                   "5s",
                   "--upgrade-binary",
                   "/opt/ringcast-next"});
  ASSERT_TRUE(running.outcome.cfg && fresh.outcome.cfg) << fresh.err;
  auto changed = settings_changed(running.cfg(), fresh.cfg());
  std::sort(changed.begin(), changed.end());
  const auto live = live_settings();
  std::vector<std::string> expected(live.begin(), live.end());
  expected.insert(expected.end(), {"heartbeat", "history"});
  std::sort(expected.begin(), expected.end());
  ASSERT_EQ(changed, expected);

  const config next = with_live_settings(running.cfg(), fresh.cfg());
  EXPECT_EQ(settings_changed(next, fresh.cfg()),
            (std::vector<std::string>{"heartbeat", "history"}));
  EXPECT_EQ(next.log, log_level::warn);
  EXPECT_EQ(next.upgrade_binary, "/opt/ringcast-next");
}

// The identity, TLS and secret settings of issue 26 are read from a file like any flag, and a
// change to them is reported on SIGHUP as needing a restart.
TEST(Reload, TokenClaimsHstsAndSecretFilesFromTheFileNeedARestart) {
  temp_dir dir;
  const auto hook_secret = dir.write("hook-secret", "first\n");
  const auto redis_password = dir.write("redis-password", "pw1\n");
  const auto file = dir.write(
      "ringcast.conf",
      "client-secret = s\nclient-audience = shop\nclient-issuer = me\nhsts = 1h\n"
      "hook-url = http://127.0.0.1:9/h\nhook-secret-file = " +
          hook_secret +
          "\nredis = redis://127.0.0.1:6379\nredis-password-file = " + redis_password + "\n");
  const run r({"--config", file});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.cfg().client_audience, "shop");
  EXPECT_EQ(r.cfg().client_issuer, "me");
  EXPECT_EQ(r.cfg().hsts, std::chrono::hours{1});
  EXPECT_EQ(r.cfg().hook_secret, "first");
  EXPECT_EQ(r.cfg().redis->password, "pw1");

  dir.write("hook-secret", "second\n");
  dir.write("redis-password", "pw2\n");
  dir.write("ringcast.conf",
            "client-secret = s\nclient-audience = billing\nclient-issuer = you\nhsts = 0\n"
            "hook-url = http://127.0.0.1:9/h\nhook-secret-file = " +
                hook_secret +
                "\nredis = redis://127.0.0.1:6379\nredis-password-file = " + redis_password + "\n");
  const char* argv[] = {"ringcast", "--config", file.c_str()};
  const auto report = check_reload(r.cfg(), 3, argv, [](const char*) { return nullptr; });
  EXPECT_TRUE(report.ok);
  EXPECT_FALSE(report.apply);
  std::vector<std::string> names;
  for (const auto& line : report.lines) {
    const auto quote = line.find('\'');
    names.push_back(line.substr(quote + 1, line.find('\'', quote + 1) - quote - 1));
    EXPECT_NE(line.find("takes effect at the next restart"), std::string::npos) << line;
  }
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"client-audience", "client-issuer", "hook-secret",
                                             "hsts", "redis"}));
}

// A config file that holds a secret itself is checked at start-up like a secret file.
TEST(ConfigFile, AFileHoldingASecretIsASecretFile) {
  temp_dir dir;
  const auto plain = dir.write("plain.conf", "heartbeat = 30s\nredis = redis://127.0.0.1:6379\n");
  const run without({"--config", plain});
  ASSERT_TRUE(without.outcome.cfg) << without.err;
  EXPECT_TRUE(without.cfg().secret_files.empty());
  for (const std::string line :
       {"admin-token = t0k3n", "client-secret = s", "redis = redis://:pw@127.0.0.1:6379",
        "hook-url = http://127.0.0.1:9/h\nhook-secret = s"}) {
    const auto file = dir.write("secret.conf", line + "\n");
    const run r({"--config", file});
    ASSERT_TRUE(r.outcome.cfg) << r.err;
    ASSERT_EQ(r.cfg().secret_files.size(), 1u) << line;
    EXPECT_EQ(r.cfg().secret_files[0].flag, "config");
    EXPECT_EQ(r.cfg().secret_files[0].path, file);
  }
}

TEST(Reload, AGeneratedTokenIsNotReplacedByAnotherGeneratedOne) {
  const run a({}), b({});
  ASSERT_TRUE(a.outcome.cfg && b.outcome.cfg);
  EXPECT_EQ(with_live_settings(a.cfg(), b.cfg()).admin_token, a.cfg().admin_token);
}

TEST(LogLevelFlag, InfoOrWarn) {
  EXPECT_EQ(run({}).cfg().log, log_level::info);
  EXPECT_EQ(run({"--log-level", "warn"}).cfg().log, log_level::warn);
  const run bad({"--log-level", "debug"});
  EXPECT_FALSE(bad.outcome.cfg);
  EXPECT_EQ(bad.err, "ringcast: --log-level: expected info or warn, got 'debug'\n");
}

TEST(Reload, BadFileKeepsRunningSettings) {
  temp_dir dir;
  const auto file = dir.write("ringcast.conf", "heartbeat = 30s\n");
  const run r({"--config", file});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  dir.write("ringcast.conf", "heartbeat = 30s\nheartbeat-ms = 4\n");
  const char* argv[] = {"ringcast", "--config", file.c_str()};
  const auto report = check_reload(r.cfg(), 3, argv, [](const char*) { return nullptr; });
  EXPECT_FALSE(report.ok);
  EXPECT_EQ(report.lines, std::vector<std::string>{"SIGHUP: " + file +
                                                   ":2: unknown setting 'heartbeat-ms'; the "
                                                   "running settings stay"});
}

TEST(Reload, OriginsHostsAndConnectHookConcurrencyAreInTheDiff) {
  const run a({"--allowed-origins", "https://a.example", "--allowed-hosts", "a.example",
               "--connect-hook-concurrency", "4"}),
      b({"--allowed-origins", "https://b.example", "--allowed-hosts", "b.example",
         "--connect-hook-concurrency", "5"});
  ASSERT_TRUE(a.outcome.cfg && b.outcome.cfg) << a.err << b.err;
  EXPECT_EQ(
      settings_changed(a.cfg(), b.cfg()),
      (std::vector<std::string>{"allowed-origins", "allowed-hosts", "connect-hook-concurrency"}));
}

TEST(Reload, GeneratedTokensCountAsUnchanged) {
  const run a({}), b({});
  ASSERT_TRUE(a.outcome.cfg && b.outcome.cfg);
  EXPECT_NE(a.cfg().admin_token, b.cfg().admin_token);
  EXPECT_TRUE(settings_changed(a.cfg(), b.cfg()).empty());
}

}  // namespace
}  // namespace ringcast
