#include "config/config.hpp"

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include <unistd.h>

#include "config/config_flags.hpp"
#include "config/config_secrets.hpp"
#include "parse_config_run.hpp"

namespace ringcast {
namespace {

using std::chrono::milliseconds;
using test::run;

// A run that must fail with exactly this line on stderr.
void expect_error(std::vector<std::string> args, const std::string& line) {
  const run r(args);
  EXPECT_FALSE(r.outcome.cfg);
  EXPECT_EQ(r.outcome.exit_status, 2);
  EXPECT_EQ(r.err, line + "\n");
  EXPECT_EQ(r.out, "");
}

TEST(ParseConfig, Defaults) {
  const run r({}, {{"RINGCAST_ADMIN_TOKEN", "t0k3n"}});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.outcome.exit_status, 0);
  EXPECT_EQ(r.err, "");
  const config& c = r.cfg();
  EXPECT_EQ(c.listen_host, "127.0.0.1");
  EXPECT_EQ(c.listen_port, 8080);
  EXPECT_EQ(c.threads, std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(c.poll_timeout, milliseconds{25'000});
  EXPECT_EQ(c.heartbeat, milliseconds{25'000});
  EXPECT_EQ(c.idle_timeout, milliseconds{60'000});
  EXPECT_EQ(c.session_ttl, milliseconds{120'000});
  EXPECT_EQ(c.handshake_timeout, milliseconds{10'000});
  EXPECT_EQ(c.keepalive_timeout, milliseconds{10'000});
  EXPECT_EQ(c.max_connection_age, milliseconds{0});
  EXPECT_EQ(c.drain, milliseconds{5'000});
  EXPECT_EQ(c.reconnect_delay, milliseconds{1'000});
  EXPECT_EQ(c.tick, milliseconds{100});
  EXPECT_EQ(c.wheel_slots, 512u);
  EXPECT_EQ(c.history, 1000u);
  EXPECT_EQ(c.max_queue, 1024u);
  EXPECT_EQ(c.max_body, 65'536u);
  EXPECT_EQ(c.max_connections, 20'000u);
  EXPECT_EQ(c.max_scheduled, 100'000u);
  EXPECT_EQ(c.max_sticky, 100u);
  EXPECT_EQ(c.write_timeout, milliseconds{30'000});
  EXPECT_EQ(c.session_limit(), 80'000u);  // 4 x --max-connections
  EXPECT_EQ(c.max_sessions_per_user, 16u);
  EXPECT_EQ(c.max_poll_batch, 100u);
  EXPECT_EQ(c.admin_token, "t0k3n");
  EXPECT_FALSE(c.admin_token_generated);
  EXPECT_EQ(c.web_root, "");
}

TEST(ParseConfig, EveryFlagSet) {
  const run r({"--listen",
               "0.0.0.0:0",
               "--threads",
               "3",
               "--poll-timeout",
               "30s",
               "--heartbeat",
               "500ms",
               "--idle-timeout",
               "2m",
               "--session-ttl",
               "1h",
               "--handshake-timeout",
               "5",
               "--keepalive-timeout",
               "75s",
               "--max-connection-age",
               "10m",
               "--drain",
               "0",
               "--reconnect-delay",
               "250ms",
               "--tick-ms",
               "10",
               "--wheel-slots",
               "1000",
               "--history",
               "1",
               "--max-queue",
               "7",
               "--max-body",
               "100",
               "--max-connections=5",
               "--admin-token=secret",
               "--web-root",
               "/"});  // a readable directory everywhere
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  const config& c = r.cfg();
  EXPECT_EQ(c.listen_host, "0.0.0.0");
  EXPECT_EQ(c.listen_port, 0);
  EXPECT_EQ(c.threads, 3u);
  EXPECT_EQ(c.poll_timeout, milliseconds{30'000});
  EXPECT_EQ(c.heartbeat, milliseconds{500});
  EXPECT_EQ(c.idle_timeout, milliseconds{120'000});
  EXPECT_EQ(c.session_ttl, milliseconds{3'600'000});
  EXPECT_EQ(c.handshake_timeout, milliseconds{5'000});
  EXPECT_EQ(c.keepalive_timeout, milliseconds{75'000});
  EXPECT_EQ(c.max_connection_age, milliseconds{600'000});
  EXPECT_EQ(c.drain, milliseconds{0});
  EXPECT_EQ(c.reconnect_delay, milliseconds{250});
  EXPECT_EQ(c.tick, milliseconds{10});
  EXPECT_EQ(c.wheel_slots, 1024u);
  EXPECT_EQ(c.history, 1u);
  EXPECT_EQ(c.max_queue, 7u);
  EXPECT_EQ(c.max_body, 100u);
  EXPECT_EQ(c.max_connections, 5u);
  EXPECT_EQ(c.admin_token, "secret");
  EXPECT_FALSE(c.admin_token_generated);
  EXPECT_EQ(c.web_root, "/");
}

TEST(ParseConfig, WriteTimeoutSessionAndPollBatchLimits) {
  const run r({"--write-timeout", "2s", "--max-sessions", "50", "--max-sessions-per-user", "3",
               "--max-poll-batch", "7"});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.cfg().write_timeout, milliseconds{2'000});
  EXPECT_EQ(r.cfg().session_limit(), 50u);
  EXPECT_EQ(r.cfg().max_sessions_per_user, 3u);
  EXPECT_EQ(r.cfg().max_poll_batch, 7u);
  const run derived({"--max-connections", "10"});
  EXPECT_EQ(derived.cfg().session_limit(), 40u);
  expect_error({"--write-timeout", "0"}, "ringcast: --write-timeout: must be more than 0");
  expect_error({"--max-sessions-per-user", "0"},
               "ringcast: --max-sessions-per-user: expected a whole number of at least 1, got '0'");
  expect_error({"--max-poll-batch", "0"},
               "ringcast: --max-poll-batch: expected a whole number of at least 1, got '0'");
}

TEST(ParseConfig, HelpListsEveryFlagWithItsDefault) {
  const run r({"--help"});
  EXPECT_FALSE(r.outcome.cfg);
  EXPECT_EQ(r.outcome.exit_status, 0);
  EXPECT_EQ(r.err, "");
  for (const char* flag : {"--help",
                           "-h",
                           "--listen",
                           "--threads",
                           "--poll-timeout",
                           "--heartbeat",
                           "--idle-timeout",
                           "--session-ttl",
                           "--handshake-timeout",
                           "--keepalive-timeout",
                           "--max-connection-age",
                           "--drain",
                           "--reconnect-delay",
                           "--tick-ms",
                           "--wheel-slots",
                           "--history",
                           "--max-queue",
                           "--max-body",
                           "--max-connections",
                           "--admin-token",
                           "--web-root"})
    EXPECT_NE(r.out.find(flag), std::string::npos) << flag << " missing from\n" << r.out;
  for (const char* fallback :
       {"HOST:PORT (=127.0.0.1:8080)", "N (=0)", "DURATION (=25s)", "DURATION (=1m)",
        "DURATION (=2m)", "DURATION (=10s)", "DURATION (=0)", "DURATION (=5s)", "DURATION (=1s)",
        "N (=100)", "N (=512)", "N (=1000)", "N (=1024)", "BYTES (=65536)", "N (=20000)",
        "RINGCAST_ADMIN_TOKEN"})
    EXPECT_NE(r.out.find(fallback), std::string::npos) << fallback << " missing from\n" << r.out;
  EXPECT_EQ(r.out.find(" \n"), std::string::npos) << "trailing space in\n" << r.out;
  EXPECT_EQ(run({"-h"}).out, r.out);
}

TEST(ParseConfig, HelpWinsOverBadValues) {
  const run r({"--tick-ms", "0", "--help"});
  EXPECT_EQ(r.outcome.exit_status, 0);
  EXPECT_NE(r.out.find("--listen"), std::string::npos);
}

TEST(ParseConfig, Listen) {
  const run v6({"--listen", "[::1]:9000"}, {{"RINGCAST_ADMIN_TOKEN", "x"}});
  ASSERT_TRUE(v6.outcome.cfg) << v6.err;
  EXPECT_EQ(v6.cfg().listen_host, "::1");
  EXPECT_EQ(v6.cfg().listen_port, 9000);
  const run any6({"--listen=[::]:65535"});
  ASSERT_TRUE(any6.outcome.cfg) << any6.err;
  EXPECT_EQ(any6.cfg().listen_host, "::");
  EXPECT_EQ(any6.cfg().listen_port, 65535);

  // A name, resolved when the server listens (as --redis and ringcast-load's --target resolve
  // theirs).
  const run named({"--listen", "localhost:8080"}, {{"RINGCAST_ADMIN_TOKEN", "x"}});
  ASSERT_TRUE(named.outcome.cfg) << named.err;
  EXPECT_EQ(named.cfg().listen_host, "localhost");
  EXPECT_EQ(named.cfg().listen_port, 8080);

  for (const char* bad : {"127.0.0.1", "127.0.0.1:", ":8080", "127.0.0.1:65536", "127.0.0.1:-1",
                          "127.0.0.1:+80", "127.0.0.1:80x", "::1:8080", "[::1]", "[127.0.0.1]:80",
                          "[::1:80", "256.0.0.1:80", "-local:80", "local host:80", "a_b:80", ""})
    expect_error({"--listen", bad},
                 std::string("ringcast: --listen: expected IPv4:PORT, [IPv6]:PORT or "
                             "HOSTNAME:PORT, got '") +
                     bad + "'");
}

TEST(ParseConfig, OriginsHostsAndTheConnectHookSecret) {
  const run r({"--allowed-origins", "https://shop.example,https://*.cdn.example", "--allowed-hosts",
               "push.example:443,localhost", "--connect-hook", "http://127.0.0.1:9/c",
               "--hook-secret", "s", "--connect-hook-concurrency", "8"},
              {{"RINGCAST_ADMIN_TOKEN", "t"}});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.cfg().allowed_origins.allowed.size(), 2u);
  EXPECT_EQ(r.cfg().allowed_hosts.names, (std::vector<std::string>{"push.example", "localhost"}));
  EXPECT_EQ(r.cfg().hook_secret, "s");  // --connect-hook alone is enough for it now
  EXPECT_EQ(r.cfg().connect_hook_concurrency, 8u);
  EXPECT_EQ(run({}, {{"RINGCAST_ADMIN_TOKEN", "t"}}).cfg().connect_hook_concurrency, 64u);

  expect_error({"--hook-secret", "s"},
               "ringcast: --hook-secret: needs --hook-url or --connect-hook");
  expect_error({"--connect-hook-concurrency", "0"},
               "ringcast: --connect-hook-concurrency: expected a whole number from 1 to 100000, "
               "got '0'");
  expect_error({"--allowed-origins", "shop.example"},
               "ringcast: --allowed-origins: expected origins scheme://host[:port] (http or https, "
               "the host possibly *.name), or *, got 'shop.example'");
  expect_error({"--allowed-hosts", "https://push.example"},
               "ringcast: --allowed-hosts: expected host names (a port is ignored), got "
               "'https://push.example'");
}

TEST(ParseConfig, BadDurations) {
  expect_error(
      {"--idle-timeout", "abc"},
      "ringcast: --idle-timeout: expected a duration like 25, 25s, 500ms or 2m, got 'abc'");
  expect_error({"--drain=1.5s"},
               "ringcast: --drain: expected a duration like 25, 25s, 500ms or 2m, got '1.5s'");
  expect_error({"--session-ttl", "99999999999999999999"},
               "ringcast: --session-ttl: duration too large, got '99999999999999999999'");
  expect_error({"--reconnect-delay=-1"},
               "ringcast: --reconnect-delay: expected a duration like 25, 25s, 500ms or 2m, got "
               "'-1'");
}

TEST(ParseConfig, TimeoutsThatMustBePositive) {
  for (const char* flag : {"poll-timeout", "heartbeat", "idle-timeout", "session-ttl",
                           "first-poll-ttl", "handshake-timeout"})
    expect_error({std::string("--") + flag, "0ms"},
                 std::string("ringcast: --") + flag + ": must be more than 0");
  // Zero means "off" for these.
  const run r({"--max-connection-age", "0", "--drain", "0", "--reconnect-delay", "0"});
  EXPECT_TRUE(r.outcome.cfg) << r.err;
}

TEST(ParseConfig, TickMustNotExceedAnyTimeout) {
  expect_error({"--tick-ms", "500", "--heartbeat", "200ms"},
               "ringcast: --tick-ms 500 is longer than --heartbeat 200ms; every timeout must be at "
               "least one tick");
  expect_error({"--tick-ms", "2000", "--max-connection-age", "1s"},
               "ringcast: --tick-ms 2000 is longer than --max-connection-age 1s; every timeout "
               "must be at least one tick");
  // Equal is fine; a zero (disabled) timeout is not compared.
  const run equal({"--tick-ms", "200", "--heartbeat", "200ms", "--max-connection-age", "0"});
  EXPECT_TRUE(equal.outcome.cfg) << equal.err;
  EXPECT_EQ(equal.cfg().tick, milliseconds{200});
  const run max_tick({"--tick-ms", "60000", "--poll-timeout", "1m", "--heartbeat", "1m",
                      "--idle-timeout", "1m", "--handshake-timeout", "1m", "--keepalive-timeout",
                      "1m", "--write-timeout", "1m", "--first-poll-ttl", "1m", "--drain", "0"});
  EXPECT_TRUE(max_tick.outcome.cfg) << max_tick.err;
}

TEST(ParseConfig, NumberRanges) {
  expect_error({"--tick-ms", "0"},
               "ringcast: --tick-ms: expected a whole number from 1 to 60000, got '0'");
  expect_error({"--tick-ms", "60001"},
               "ringcast: --tick-ms: expected a whole number from 1 to 60000, got '60001'");
  expect_error({"--tick-ms", "100ms"},
               "ringcast: --tick-ms: expected a whole number from 1 to 60000, got '100ms'");
  expect_error({"--wheel-slots", "15"},
               "ringcast: --wheel-slots: expected a whole number from 16 to 65536, got '15'");
  expect_error({"--wheel-slots", "65537"},
               "ringcast: --wheel-slots: expected a whole number from 16 to 65536, got '65537'");
  expect_error({"--threads", "x"},
               "ringcast: --threads: expected a whole number from 0 to 1024, got 'x'");
  expect_error({"--threads=-1"},
               "ringcast: --threads: expected a whole number from 0 to 1024, got '-1'");
  for (const char* flag :
       {"history", "max-queue", "max-body", "max-connections", "max-scheduled", "max-sticky"}) {
    expect_error(
        {std::string("--") + flag, "0"},
        std::string("ringcast: --") + flag + ": expected a whole number of at least 1, got '0'");
    expect_error({std::string("--") + flag, "99999999999999999999"},
                 std::string("ringcast: --") + flag +
                     ": expected a whole number of at least 1, got '99999999999999999999'");
    expect_error(
        {std::string("--") + flag, " 5"},
        std::string("ringcast: --") + flag + ": expected a whole number of at least 1, got ' 5'");
  }
}

TEST(ParseConfig, PerAddressAndPerClientLimits) {
  const run defaults({});
  ASSERT_TRUE(defaults.outcome.cfg) << defaults.err;
  EXPECT_EQ(defaults.cfg().max_connections_per_ip, 64u);
  EXPECT_EQ(defaults.cfg().ipv6_prefix, 64u);
  EXPECT_EQ(defaults.cfg().send_buffer, 256u * 1024);
  EXPECT_EQ(defaults.cfg().connect_rate_per_ip, 0u);
  EXPECT_TRUE(defaults.cfg().trusted_proxies.empty());
  EXPECT_EQ(defaults.cfg().client_message_rate, 50u);
  const run set({"--max-connections-per-ip", "10", "--connect-rate-per-ip", "5", "--trusted-proxy",
                 "10.0.0.0/8,::1", "--client-message-rate", "0"});
  ASSERT_TRUE(set.outcome.cfg) << set.err;
  EXPECT_EQ(set.cfg().max_connections_per_ip, 10u);
  EXPECT_EQ(set.cfg().connect_rate_per_ip, 5u);
  ASSERT_EQ(set.cfg().trusted_proxies.size(), 2u);
  EXPECT_EQ(set.cfg().trusted_proxies[0].prefix, 8u);
  EXPECT_EQ(set.cfg().client_message_rate, 0u);
  expect_error({"--trusted-proxy", "10.0.0.0/40"},
               "ringcast: --trusted-proxy: '10.0.0.0/40': the prefix must be 0-32");
  expect_error({"--trusted-proxy", "proxy.local"},
               "ringcast: --trusted-proxy: 'proxy.local' is not an address or ADDRESS/PREFIX");
  expect_error({"--connect-rate-per-ip", "-1"},
               "ringcast: --connect-rate-per-ip: expected a whole number from 0 to 1000000, got "
               "'-1'");
}

TEST(ParseConfig, WheelSlotsRoundUpToAPowerOfTwo) {
  auto slots = [](const char* n) { return run({"--wheel-slots", n}).cfg().wheel_slots; };
  EXPECT_EQ(slots("16"), 16u);
  EXPECT_EQ(slots("17"), 32u);
  EXPECT_EQ(slots("512"), 512u);
  EXPECT_EQ(slots("513"), 1024u);
  EXPECT_EQ(slots("40000"), 65536u);
  EXPECT_EQ(slots("65536"), 65536u);
}

TEST(ParseConfig, ThreadsZeroMeansOnePerCore) {
  EXPECT_EQ(run({"--threads", "0"}).cfg().threads,
            std::max(1u, std::thread::hardware_concurrency()));
  EXPECT_EQ(run({"--threads", "1024"}).cfg().threads, 1024u);
}

TEST(ParseConfig, AdminTokenPrecedence) {
  const std::map<std::string, std::string> env{{"RINGCAST_ADMIN_TOKEN", "from-env"}};
  const run flag({"--admin-token", "from-flag"}, env);
  EXPECT_EQ(flag.cfg().admin_token, "from-flag");
  EXPECT_FALSE(flag.cfg().admin_token_generated);

  const run from_env({}, env);
  EXPECT_EQ(from_env.cfg().admin_token, "from-env");
  EXPECT_FALSE(from_env.cfg().admin_token_generated);

  // Only RINGCAST_ADMIN_TOKEN is consulted.
  const run other_env({}, {{"ADMIN_TOKEN", "nope"}});
  EXPECT_TRUE(other_env.cfg().admin_token_generated);
}

TEST(ParseConfig, GeneratedTokenIs32HexCharacters) {
  const run a({});
  const run b({}, {{"RINGCAST_ADMIN_TOKEN", ""}});  // empty counts as unset
  for (const run* r : {&a, &b}) {
    ASSERT_TRUE(r->outcome.cfg) << r->err;
    EXPECT_TRUE(r->cfg().admin_token_generated);
    EXPECT_EQ(r->cfg().admin_token.size(), 32u);
    EXPECT_EQ(r->cfg().admin_token.find_first_not_of("0123456789abcdef"), std::string::npos)
        << r->cfg().admin_token;
  }
  EXPECT_NE(a.cfg().admin_token, b.cfg().admin_token);
}

TEST(ParseConfig, BadAdminTokens) {
  expect_error({"--admin-token", ""},
               "ringcast: --admin-token: expected printable ASCII without spaces");
  expect_error({"--admin-token", "two words"},
               "ringcast: --admin-token: expected printable ASCII without spaces");
  const run env({}, {{"RINGCAST_ADMIN_TOKEN", "bad\ttoken"}});
  EXPECT_EQ(env.outcome.exit_status, 2);
  EXPECT_EQ(env.err, "ringcast: RINGCAST_ADMIN_TOKEN: expected printable ASCII without spaces\n");
}

TEST(ParseConfig, UnknownAndMalformedFlags) {
  expect_error({"--nope"},
               "ringcast: unknown flag '--nope'; run 'ringcast --help' for the list of flags");
  expect_error({"-x"}, "ringcast: unknown flag '-x'; run 'ringcast --help' for the list of flags");
  // No abbreviations: a prefix of a real flag is unknown too.
  expect_error({"--heart", "5"},
               "ringcast: unknown flag '--heart'; run 'ringcast --help' for the list of flags");
  expect_error(
      {"stray"},
      "ringcast: unexpected argument 'stray'; run 'ringcast --help' for the list of flags");
  expect_error({"--threads", "2", "8"},
               "ringcast: unexpected argument '8'; run 'ringcast --help' for the list of flags");
  expect_error({"--listen", "127.0.0.1:1", "--listen", "127.0.0.1:2"},
               "ringcast: --listen: given more than once");

  for (std::vector<std::string> args :
       {std::vector<std::string>{"--listen"}, {"--admin-token="}, {"--help=yes"}}) {
    const run r(args);
    EXPECT_EQ(r.outcome.exit_status, 2) << args[0];
    EXPECT_FALSE(r.outcome.cfg);
    EXPECT_TRUE(r.err.starts_with("ringcast: ")) << r.err;
    EXPECT_TRUE(r.err.ends_with("; run 'ringcast --help' for the list of flags\n")) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
}

// Boost 1.81 would loop for ever building the message of this error: the option it names holds
// the placeholder its template replaces with that name (found by fuzz_config).
TEST(ParseConfig, AnArgumentHoldingAFlagParserPlaceholderIsReportedNotHung) {
  expect_error({"--x%original_token%="},
               "ringcast: cannot parse the argument '--x%original_token%=' (and it holds "
               "'%original_token%', which the flag parser cannot put in an error message); run "
               "'ringcast --help' for the list of flags");
}

// ---- secrets from files, and their permissions ----

std::string secret_file(const std::string& name, const std::string& text, unsigned mode) {
  const auto path = std::filesystem::temp_directory_path() / name;
  std::ofstream(path) << text;
  std::filesystem::permissions(path, static_cast<std::filesystem::perms>(mode));
  return path.string();
}

TEST(ParseConfig, HookSecretFromAFile) {
  const std::string file = secret_file("ringcast_config_hook_secret", "s3cret\n", 0600);
  const run r({"--hook-url", "http://127.0.0.1:9/h", "--hook-secret-file", file});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.cfg().hook_secret, "s3cret");
  expect_error(
      {"--hook-url", "http://127.0.0.1:9/h", "--hook-secret", "a", "--hook-secret-file", file},
      "ringcast: --hook-secret-file: give either --hook-secret or --hook-secret-file, "
      "not both");
  expect_error({"--hook-secret-file", file},
               "ringcast: --hook-secret-file: needs --hook-url or --connect-hook");
  std::filesystem::remove(file);
}

TEST(ParseConfig, ThePusherDoorOpensWithItsThreeSettingsTogether) {
  const run none({});
  ASSERT_TRUE(none.outcome.cfg) << none.err;
  EXPECT_FALSE(none.cfg().pusher());
  EXPECT_FALSE(none.cfg().pusher_client_events);

  const run all({"--pusher-app-id", "1234", "--pusher-key", "278d425bdf160c739803",
                 "--pusher-secret", "7ad3773142a6692b25b8", "--pusher-client-events",
                 "--pusher-webhook-url", "http://127.0.0.1:9/a, https://hooks.example/b"});
  ASSERT_TRUE(all.outcome.cfg) << all.err;
  const config& c = all.cfg();
  EXPECT_TRUE(c.pusher());
  EXPECT_EQ(c.pusher_app_id, "1234");
  EXPECT_EQ(c.pusher_key, "278d425bdf160c739803");
  EXPECT_EQ(c.pusher_secret, "7ad3773142a6692b25b8");
  EXPECT_TRUE(c.pusher_client_events);
  ASSERT_EQ(c.pusher_webhook_urls.size(), 2u);
  EXPECT_EQ(c.pusher_webhook_urls[0].port, 9);
  EXPECT_TRUE(c.pusher_webhook_urls[1].tls);
  EXPECT_EQ(c.pusher_webhook_urls[1].host, "hooks.example");

  // The secret from the environment, which the flag overrides.
  const run env({"--pusher-app-id", "1", "--pusher-key", "k"}, {{"RINGCAST_PUSHER_SECRET", "e"}});
  ASSERT_TRUE(env.outcome.cfg) << env.err;
  EXPECT_EQ(env.cfg().pusher_secret, "e");
  const run flag({"--pusher-app-id", "1", "--pusher-key", "k", "--pusher-secret", "f"},
                 {{"RINGCAST_PUSHER_SECRET", "e"}});
  ASSERT_TRUE(flag.outcome.cfg) << flag.err;
  EXPECT_EQ(flag.cfg().pusher_secret, "f");
}

TEST(ParseConfig, APartialPusherAppIsAStartupError) {
  expect_error({"--pusher-app-id", "1"},
               "ringcast: the Pusher door needs --pusher-app-id, --pusher-key and --pusher-secret "
               "together: --pusher-app-id given without --pusher-key and --pusher-secret");
  expect_error({"--pusher-app-id", "1", "--pusher-secret", "s"},
               "ringcast: the Pusher door needs --pusher-app-id, --pusher-key and --pusher-secret "
               "together: --pusher-app-id and --pusher-secret given without --pusher-key");
  expect_error({"--pusher-key", "k", "--pusher-app-id", "1"},
               "ringcast: the Pusher door needs --pusher-app-id, --pusher-key and --pusher-secret "
               "together: --pusher-app-id and --pusher-key given without --pusher-secret");
  // A secret in the environment alone is a partial app too: it names where it came from.
  const run env({}, {{"RINGCAST_PUSHER_SECRET", "e"}});
  EXPECT_EQ(env.err,
            "ringcast: the Pusher door needs --pusher-app-id, --pusher-key and --pusher-secret "
            "together: $RINGCAST_PUSHER_SECRET given without --pusher-app-id and --pusher-key\n");
  expect_error({"--pusher-client-events"},
               "ringcast: --pusher-client-events: needs --pusher-app-id, --pusher-key and "
               "--pusher-secret");
  expect_error({"--pusher-webhook-url", "http://127.0.0.1:9/a"},
               "ringcast: --pusher-webhook-url: needs --pusher-app-id, --pusher-key and "
               "--pusher-secret");
}

TEST(ParseConfig, PusherValuesAreChecked) {
  expect_error({"--pusher-app-id", "a/b"},
               "ringcast: --pusher-app-id: expected 1-128 letters, digits, '-' or '_', got 'a/b'");
  expect_error({"--pusher-key", "k:1"},
               "ringcast: --pusher-key: expected 1-128 letters, digits, '-' or '_', got 'k:1'");
  expect_error({"--pusher-app-id", "1", "--pusher-key", "k", "--pusher-secret", ""},
               "ringcast: --pusher-secret: expected a non-empty secret");
  const std::vector<std::string> app{"--pusher-app-id", "1", "--pusher-key", "k",
                                     "--pusher-secret", "s"};
  auto with_app = [&app](std::vector<std::string> more) {
    more.insert(more.begin(), app.begin(), app.end());
    return more;
  };
  const run bad_url(with_app({"--pusher-webhook-url", "http://127.0.0.1:9/a,ftp://x/y"}));
  EXPECT_FALSE(bad_url.outcome.cfg);
  EXPECT_TRUE(bad_url.err.starts_with("ringcast: --pusher-webhook-url: ")) << bad_url.err;
  expect_error(with_app({"--pusher-webhook-url", " , "}),
               "ringcast: --pusher-webhook-url: expected at least one URL");
}

TEST(ParseConfig, PusherSecretFromAFile) {
  const std::string file = secret_file("ringcast_config_pusher_secret", "p5ecret\n", 0600);
  const run r({"--pusher-app-id", "1", "--pusher-key", "k", "--pusher-secret-file", file});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.cfg().pusher_secret, "p5ecret");
  ASSERT_EQ(r.cfg().secret_files.size(), 1u);
  EXPECT_EQ(r.cfg().secret_files[0].flag, "pusher-secret-file");
  expect_error({"--pusher-app-id", "1", "--pusher-key", "k", "--pusher-secret", "a",
                "--pusher-secret-file", file},
               "ringcast: --pusher-secret-file: give either --pusher-secret or "
               "--pusher-secret-file, not both");
  expect_error({"--pusher-secret-file", file},
               "ringcast: the Pusher door needs --pusher-app-id, --pusher-key and --pusher-secret "
               "together: --pusher-secret-file given without --pusher-app-id and --pusher-key");
  std::filesystem::remove(file);
}

TEST(ParseConfig, RedisPasswordFromAFile) {
  const std::string file = secret_file("ringcast_config_redis_password", "p@ss word\n", 0600);
  const run r({"--redis", "redis://127.0.0.1:6379/2", "--redis-password-file", file});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.cfg().redis->password, "p@ss word");
  EXPECT_EQ(r.cfg().redis->db, 2u);
  expect_error({"--redis", "redis://:x@127.0.0.1", "--redis-password-file", file},
               "ringcast: --redis-password-file: the --redis URL has a password already; give it "
               "in one place, not both");
  expect_error({"--redis-password-file", file}, "ringcast: --redis-password-file: needs --redis");
  std::filesystem::remove(file);
}

TEST(ParseConfig, AnEmptyHookCaIsRefused) {
  expect_error({"--hook-ca", ""},
               "ringcast: --hook-ca: expected a file of PEM certificates; an empty value would "
               "turn off checking the backend's certificate");
}

TEST(ParseConfig, HstsDefaultsToAYear) {
  const run r({});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  EXPECT_EQ(r.cfg().hsts, std::chrono::hours{24 * 365});
  const run off({"--hsts", "0"});
  ASSERT_TRUE(off.outcome.cfg) << off.err;
  EXPECT_EQ(off.cfg().hsts, milliseconds{0});
  expect_error({"--hsts", "500ms"},
               "ringcast: --hsts: max-age is whole seconds: give at least 1s, or 0 for none");
}

TEST(SecretFiles, AWarningForEachFileOthersOrAnotherGroupMayRead) {
  const std::string shut = secret_file("ringcast_config_shut", "a\n", 0600);
  const std::string open = secret_file("ringcast_config_open", "b\n", 0604);
  const std::string group = secret_file("ringcast_config_group", "c\n", 0640);
  const run r({"--admin-token-file", shut, "--client-secret-file", open, "--hook-url",
               "http://127.0.0.1:9/h", "--hook-secret-file", group});
  ASSERT_TRUE(r.outcome.cfg) << r.err;
  const unsigned own = ::getegid();
  const std::string others =
      "--client-secret-file: " + open + " is readable by group or others (mode 0604); chmod 600 it";
  // Its own group may read (the package's root:ringcast 0640); others may not.
  EXPECT_EQ(secret_file_warnings(r.cfg(), own), std::vector<std::string>{others});
  // Nor may another group.
  EXPECT_EQ(secret_file_warnings(r.cfg(), own + 1),
            (std::vector<std::string>{others, "--hook-secret-file: " + group +
                                                  " is readable by group or others (mode 0640); "
                                                  "chmod 600 it"}));
  for (const auto& f : {shut, open, group})
    std::filesystem::remove(f);
}

}  // namespace
}  // namespace ringcast

namespace ringcast {
namespace {

// --help: a heading per topic in order, every word of every description whole (Boost's layout cut
// "sentinel://…/MAS" "TER"), lines within 80 columns.
TEST(HelpText, GroupedByTopicWithNoWordSplit) {
  const std::string help = help_text();
  std::size_t at = 0;
  for (const char* topic :
       {"General:", "Listening:", "Timeouts:", "Limits:", "Authentication and TLS:",
        "Redis (several nodes):", "Hooks (the shop's backend):", "Promotions:", "Logging:"}) {
    const auto found = ("\n" + help).find(std::string("\n") + topic + "\n", at);
    ASSERT_NE(found, std::string::npos) << topic << " missing or out of order:\n" << help;
    at = found + 1;
  }
  std::set<std::string> tokens;
  std::istringstream in(help);
  for (std::string t; in >> t;)
    tokens.insert(t);
  for (const auto& group : describe_flag_groups()) {
    for (const auto& option : group.flags.options()) {
      std::istringstream words(option->description());
      for (std::string w; words >> w;)
        EXPECT_TRUE(tokens.count(w))
            << "'" << w << "' of --" << option->long_name() << " is not whole in --help:\n"
            << help;
    }
  }
  EXPECT_TRUE(tokens.count("sentinel://HOST:PORT[,HOST:PORT...]/MASTER"));
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);)
    EXPECT_LE(line.size(), 80u) << line;
}

}  // namespace
}  // namespace ringcast
