#include "config.hpp"

#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

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
               "/srv/web"});
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
  EXPECT_EQ(c.web_root, "/srv/web");
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

  for (const char* bad : {"127.0.0.1", "127.0.0.1:", ":8080", "localhost:8080", "127.0.0.1:65536",
                          "127.0.0.1:-1", "127.0.0.1:+80", "127.0.0.1:80x", "::1:8080", "[::1]",
                          "[127.0.0.1]:80", "[::1:80", "256.0.0.1:80", ""})
    expect_error(
        {"--listen", bad},
        std::string("ringcast: --listen: expected IPv4:PORT or [IPv6]:PORT, got '") + bad + "'");
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
  for (const char* flag :
       {"poll-timeout", "heartbeat", "idle-timeout", "session-ttl", "handshake-timeout"})
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
                      "1m", "--write-timeout", "1m", "--drain", "0"});
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
       {"history", "max-queue", "max-body", "max-connections", "max-scheduled"}) {
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

}  // namespace
}  // namespace ringcast
