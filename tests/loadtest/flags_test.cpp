#include "flags.hpp"
#include "generated/version.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace ringcast::load {
namespace {

std::optional<options> parse(std::vector<std::string> args, const char* env = nullptr) {
  std::vector<const char*> argv{"ringcast-load"};
  for (const auto& a : args)
    argv.push_back(a.c_str());
  return parse_flags(static_cast<int>(argv.size()), argv.data(), env, nullptr);
}

TEST(Flags, Defaults) {
  const auto o = parse({});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->clients, 100u);
  ASSERT_EQ(o->targets.size(), 1u);
  EXPECT_EQ(o->targets[0].text(), "127.0.0.1:8080");
  EXPECT_EQ(o->mix.weight[0], 100u);
  EXPECT_EQ(o->ping_interval, std::chrono::seconds(20));
  EXPECT_FALSE(o->expect_zero_loss);
  EXPECT_FALSE(o->tls);
  EXPECT_TRUE(o->tls_ca.empty());
  EXPECT_FALSE(o->ws_deflate);
  EXPECT_TRUE(o->payload_members.empty());
  EXPECT_FALSE(o->kernel_arrival);
}

TEST(Flags, WsDeflateOffers) {
  const auto o = parse({"--ws-deflate"});
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->ws_deflate);
}

TEST(Flags, KernelArrivalNeedsPlainWsClientsInWorkerProcesses) {
  const auto o = parse({"--arrival", "kernel", "--procs", "2"});
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->kernel_arrival);
  EXPECT_FALSE(parse({"--arrival", "read"})->kernel_arrival);
  for (const std::vector<std::string>& bad : std::vector<std::vector<std::string>>{
           {"--arrival", "kernel"},  // --procs 1: the publisher would run at idle priority
           {"--arrival", "kernel", "--procs", "2", "--tls"},
           {"--arrival", "kernel", "--procs", "2", "--mix", "ws=50,sse=50"},
           {"--arrival", "soon", "--procs", "2"}}) {
    EXPECT_THROW(parse(bad), flag_error) << bad.back();
  }
}

TEST(Flags, PayloadMembersAreKeptAsWritten) {
  EXPECT_EQ(payload_members(R"( { "kind":"promo", "url" : "https://x/y?a=1" } )"
                            "\n"),
            R"("kind":"promo", "url" : "https://x/y?a=1")");
  EXPECT_EQ(payload_members("{}"), "");
  for (const char* bad : {"", "[1]", "{\"a\":", "7", R"({"t":1})", R"({"seq":2})"})
    EXPECT_THROW(payload_members(bad), flag_error) << bad;
}

TEST(Flags, FullCommandLine) {
  const auto o = parse({"--clients",
                        "1000",
                        "--mix",
                        "ws=70,sse=20,poll=10",
                        "--rate",
                        "250",
                        "--churn",
                        "2.5",
                        "--idle",
                        "10",
                        "--ping-interval",
                        "500ms",
                        "--publish-rate",
                        "50",
                        "--duration",
                        "1m",
                        "--warmup",
                        "3s",
                        "--procs",
                        "2",
                        "--targets",
                        "127.0.0.1:9001,127.0.0.2:9002",
                        "--server-pid",
                        "42",
                        "--expect-zero-loss"});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->clients, 1000u);
  EXPECT_EQ(o->mix.weight[0], 70u);
  EXPECT_EQ(o->mix.weight[1], 20u);
  EXPECT_EQ(o->mix.weight[2], 10u);
  EXPECT_DOUBLE_EQ(o->churn_pct, 2.5);
  EXPECT_EQ(o->ping_interval, std::chrono::milliseconds(500));
  EXPECT_EQ(o->duration, std::chrono::minutes(1));
  EXPECT_EQ(o->procs, 2u);
  ASSERT_EQ(o->targets.size(), 2u);
  EXPECT_EQ(o->targets[1].host, "127.0.0.2");
  EXPECT_EQ(o->targets[1].port, 9002);
  EXPECT_EQ(o->server_pids, std::vector<int>{42});
  EXPECT_EQ(o->kind, server_kind::ringcast);
  EXPECT_TRUE(o->expect_zero_loss);
}

TEST(Flags, NchanKindChannelAndSeveralPids) {
  const auto o = parse({"--server-kind", "nchan", "--channel", "room_1-b", "--server-pid",
                        "100,101,102", "--mix", "ws"});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->kind, server_kind::nchan);
  EXPECT_EQ(o->channel, "room_1-b");
  EXPECT_EQ(o->server_pids, (std::vector<int>{100, 101, 102}));
  EXPECT_EQ(parse({"--server-kind", "nchan"})->channel, "broadcast");
  // ringcast publishes broadcasts unless a channel is named.
  EXPECT_EQ(parse({})->channel, "");
  EXPECT_EQ(parse({"--channel", "sale"})->channel, "sale");
  EXPECT_TRUE(parse({})->server_pids.empty());
}

TEST(Flags, PusherKindNeedsItsKeyAndJoinsAChannel) {
  const auto o = parse({"--server-kind", "pusher", "--pusher-key", "app-key"});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->kind, server_kind::pusher);
  EXPECT_EQ(o->pusher_key, "app-key");
  EXPECT_EQ(o->channel, "broadcast");
  EXPECT_EQ(parse({"--server-kind", "pusher", "--pusher-key", "k", "--channel", "sale"})->channel,
            "sale");
}

TEST(Flags, TokenFromEnvironmentUnlessGiven) {
  EXPECT_EQ(parse({}, "from-env")->admin_token, "from-env");
  EXPECT_EQ(parse({"--admin-token", "flag"}, "from-env")->admin_token, "flag");
}

TEST(Flags, StrayWordsAreErrors) {
  try {
    parse({"--server-pid", "100", "200"});
    FAIL() << "no flag_error";
  } catch (const flag_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "unexpected argument '200' (several --server-pid values are written with commas: "
              "--server-pid 1,2)");
  }
}

// Boost 1.81 would loop for ever building this error's message (ringcast's own flags too:
// config_test.cpp).
TEST(Flags, AnArgumentHoldingAFlagParserPlaceholderIsReportedNotHung) {
  try {
    parse({"--x%original_token%="});
    FAIL() << "no flag_error";
  } catch (const flag_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cannot parse the argument '--x%original_token%=' (and it holds '%original_token%', "
              "which the flag parser cannot put in an error message)");
  }
}

TEST(Flags, SpreadIsPacedPublishingAndLengthensTheRun) {
  const auto plain = parse({"--duration", "10s", "--settle", "2s"});
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->spread.count(), 0);
  EXPECT_EQ(run_length(*plain), std::chrono::seconds(12));
  const auto paced = parse({"--duration", "10s", "--settle", "2s", "--spread", "30s"});
  ASSERT_TRUE(paced);
  EXPECT_EQ(paced->spread, std::chrono::seconds(30));
  // The last publish's turns come up to 30 s after it: the count waits for them.
  EXPECT_EQ(run_length(*paced), std::chrono::seconds(42));
}

TEST(Flags, HelpReturnsNothing) {
  std::string help;
  const char* argv[] = {"ringcast-load", "--help"};
  EXPECT_FALSE(parse_flags(2, argv, nullptr, &help));
  EXPECT_NE(help.find("--mix"), std::string::npos);
}

TEST(Flags, HelpNamesEveryValue) {
  std::string help;
  const char* argv[] = {"ringcast-load", "--help"};
  EXPECT_FALSE(parse_flags(2, argv, nullptr, &help));
  EXPECT_EQ(help.find(" arg"), std::string::npos) << help;
  for (const char* named : {"--target HOST:PORT", "--clients N", "--duration DURATION",
                            "--admin-token TOKEN", "--tls-ca FILE", "--server-pid PID,..."})
    EXPECT_NE(help.find(named), std::string::npos) << named << "\n" << help;
}

TEST(Flags, VersionPrintsTheProjectVersion) {
  std::string out;
  const char* argv[] = {"ringcast-load", "--version"};
  EXPECT_FALSE(parse_flags(2, argv, nullptr, &out));
  EXPECT_EQ(out, std::string{"ringcast-load "} + ringcast::project_version + "\n");
  EXPECT_NE(std::string{ringcast::project_version}, "");
}

TEST(Flags, BadValuesAreRefused) {
  const std::vector<std::vector<std::string>> bad{
      {"--clients", "0"},
      {"--clients", "-5"},
      {"--clients", "ten"},
      {"--rate", "0"},
      {"--churn", "101"},
      {"--idle", "-1"},
      {"--duration", "5x"},
      {"--duration", "0"},
      {"--warmup", "20", "--duration", "10"},
      {"--procs", "0"},
      {"--mix", "ws=70,udp=30"},
      {"--mix", "ws=0"},
      {"--mix", "ws=1,ws=2"},
      {"--mix", "ws=a"},
      {"--target", "10.0.0.1:80"},
      {"--target", "example.com:80"},
      {"--target", "127.0.0.1"},
      {"--target", "127.0.0.1:0"},
      {"--target", "127.0.0.1:70000"},
      {"--targets", "127.0.0.1:1,192.168.1.1:2"},
      {"--no-such-flag"},
      {"--clients"},
      {"--server-pid", "0"},
      {"--server-pid", "1,,2"},
      {"--server-pid", "1,-2"},
      {"--server-kind", "nginx"},
      {"--server-kind", "nchan", "--mix", "ws=9,sse=1"},
      {"--server-kind", "nchan", "--churn", "1"},
      {"--server-kind", "nchan", "--spread", "5s"},
      {"--server-kind", "pusher"},
      {"--pusher-key", "k"},
      {"--server-kind", "pusher", "--pusher-key", "k", "--mix", "ws=1,poll=1"},
      {"--server-kind", "pusher", "--pusher-key", "k", "--churn", "1"},
      {"--spread", "-1s"},
      {"--spread", "soon"},
      {"--channel", ""},
      {"--channel", "a/b"},
      {"--channel", std::string(65, 'c')},
      {"--target", "127.0.0.1:1", "--targets", "127.0.0.1:2"}};
  for (const auto& args : bad) {
    EXPECT_THROW(parse(args), flag_error) << args[0] << " " << (args.size() > 1 ? args[1] : "");
  }
}

// A self-signed certificate (only parsed here: its expiry does not matter) and a few files that
// are not one, in a directory removed at the end.
class TlsFlags : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ringcast-load-flags-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
    write("ca.pem", R"(-----BEGIN CERTIFICATE-----
MIIBojCCAUigAwIBAgIURZpfKHv84aA7XFwjkx2tfuVin0owCgYIKoZIzj0EAwIw
HjEcMBoGA1UEAwwTcmluZ2Nhc3QtZmxhZ3MtdGVzdDAeFw0yNjExMjIwODIzMjha
Fw0yNjExMjMwODIzMjhaMB4xHDAaBgNVBAMME3JpbmdjYXN0LWZsYWdzLXRlc3Qw
WTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAR/O3yufILhKFEh2aRhvDTR+z7P015W
oU27IlHSGZV4PAbLCtNwAuZeko9CTXqoqCe8kA5NvMwSwx8FIzGt/Jj+o2QwYjAd
BgNVHQ4EFgQUSHfAF96t4XEV0wvYRpFSRHKiiuIwHwYDVR0jBBgwFoAUSHfAF96t
4XEV0wvYRpFSRHKiiuIwDwYDVR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAAB
MAoGCCqGSM49BAMCA0gAMEUCIQDL/ecgP0z8i9p9MIa0AZ70s90loPlQDxuHj6Gl
8MHLHwIgUSKmVqjZMiYdK421x+Z2GI12M/YkxxA43roGli2gbpg=
-----END CERTIFICATE-----
)");
    write("junk.pem", "this is not a certificate\n");
    write("empty.pem", "");
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string file(const char* name) const { return (dir_ / name).string(); }
  void write(const char* name, const std::string& text) const {
    std::ofstream(dir_ / name) << text;
  }

  std::filesystem::path dir_;
};

TEST_F(TlsFlags, PayloadFileIsReadAndChecked) {
  write("promo.json", R"({"title":"-20 %","price_cents":1999})");
  const auto o = parse({"--payload", file("promo.json")});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->payload_members, R"("title":"-20 %","price_cents":1999)");
  for (const auto& name : {file("missing.json"), file("junk.pem")}) {
    try {
      parse({"--payload", name});
      FAIL() << name;
    } catch (const flag_error& e) {
      EXPECT_TRUE(std::string_view(e.what()).starts_with("--payload")) << e.what();
    }
  }
}

TEST_F(TlsFlags, TlsAloneDoesNotVerify) {
  const auto o = parse({"--tls"});
  ASSERT_TRUE(o);
  EXPECT_TRUE(o->tls);
  EXPECT_TRUE(o->tls_ca.empty());
}

TEST_F(TlsFlags, CaFileImpliesTls) {
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--tls-ca", file("ca.pem")}, {"--tls", "--tls-ca", file("ca.pem")}}) {
    const auto o = parse(args);
    ASSERT_TRUE(o);
    EXPECT_TRUE(o->tls);
    EXPECT_EQ(o->tls_ca, file("ca.pem"));
  }
}

TEST_F(TlsFlags, BadCaFileIsAFlagError) {
  for (const auto& ca :
       {file("missing.pem"), file("junk.pem"), file("empty.pem"), dir_.string(), std::string()}) {
    EXPECT_THROW(parse({"--tls-ca", ca}), flag_error) << "'" << ca << "'";
  }
  // The message names the flag and the file.
  try {
    parse({"--tls-ca", file("missing.pem")});
    FAIL() << "no flag_error";
  } catch (const flag_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("--tls-ca"), std::string::npos) << what;
    EXPECT_NE(what.find("missing.pem"), std::string::npos) << what;
  }
  EXPECT_THROW(parse({"--tls-ca"}), flag_error);
}

TEST(Mix, BareNameMeansOnlyThat) {
  const auto m = parse_mix("sse");
  EXPECT_EQ(m.weight[0], 0u);
  EXPECT_GT(m.weight[1], 0u);
  EXPECT_EQ(m.weight[2], 0u);
}

TEST(Mix, AssignmentMatchesWeightsAndInterleaves) {
  const auto a = assign_transports(parse_mix("ws=70,sse=20,poll=10"), 1000);
  EXPECT_EQ(std::count(a.begin(), a.end(), transport::ws), 700);
  EXPECT_EQ(std::count(a.begin(), a.end(), transport::sse), 200);
  EXPECT_EQ(std::count(a.begin(), a.end(), transport::poll), 100);
  // Every ramp-up prefix of 10 has the proportions already.
  const std::vector<transport> first(a.begin(), a.begin() + 10);
  EXPECT_EQ(std::count(first.begin(), first.end(), transport::ws), 7);
  EXPECT_EQ(std::count(first.begin(), first.end(), transport::poll), 1);
}

TEST(Mix, IdleShareIsSpreadEvenly) {
  int idle = 0;
  for (std::size_t k = 0; k < 1000; ++k)
    idle += is_idle(k, 15) ? 1 : 0;
  EXPECT_EQ(idle, 150);
  EXPECT_FALSE(is_idle(0, 0));
  EXPECT_TRUE(is_idle(0, 100));
}

TEST(Duration, TheServersSyntax) {
  EXPECT_EQ(duration_flag("25", "--x"), std::chrono::seconds(25));
  EXPECT_EQ(duration_flag("25s", "--x"), std::chrono::seconds(25));
  EXPECT_EQ(duration_flag("500ms", "--x"), std::chrono::milliseconds(500));
  EXPECT_EQ(duration_flag("2m", "--x"), std::chrono::minutes(2));
  EXPECT_EQ(duration_flag("1h", "--x"), std::chrono::hours(1));
  EXPECT_THROW(duration_flag("", "--x"), flag_error);
  EXPECT_THROW(duration_flag("s", "--x"), flag_error);
  EXPECT_THROW(duration_flag("1.5s", "--x"), flag_error);
  try {
    duration_flag("soon", "--warmup");
    FAIL() << "no error";
  } catch (const flag_error& e) {
    EXPECT_TRUE(std::string_view(e.what()).starts_with("--warmup: ")) << e.what();
  }
}

}  // namespace
}  // namespace ringcast::load
