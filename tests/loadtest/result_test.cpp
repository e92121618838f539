#include "result.hpp"

#include "report.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace ringcast::load {
namespace {

client_result worker(std::uint64_t base_latency, std::vector<std::int64_t> fanout) {
  client_result r;
  r.clients = 10;
  r.expected = 100, r.received = 99, r.lost = 1, r.duplicates = 2;
  r.reconnects = 3;
  r.ws_socket_bytes = base_latency * 7, r.ws_socket_messages = 90;
  for (std::uint64_t i = 0; i < 100; ++i)
    r.latency_us.record(base_latency + i);
  r.connect_us.record(base_latency * 10);
  r.upgrade_us.record(base_latency * 9);
  r.fanout_us = std::move(fanout);
  r.longest_gap_us = base_latency * 3;
  r.server_closes["idle"] = 1;
  r.errors["connect"] = 4;
  return r;
}

TEST(ClientResult, JsonRoundTripKeepsEverything) {
  const auto r = worker(1000, {5, -1, 7});
  const auto back =
      client_result::from_json(boost::json::parse(boost::json::serialize(r.to_json())));
  EXPECT_EQ(back.to_json(), r.to_json());
  EXPECT_EQ(back.latency_us.percentile(99), r.latency_us.percentile(99));
}

TEST(ClientResult, MergeAddsCountersAndMergesHistograms) {
  auto a = worker(1000, {5, -1, 7});
  const auto b = client_result::from_json(worker(5000, {9, 3}).to_json());
  a.merge(b);
  EXPECT_EQ(a.clients, 20u);
  EXPECT_EQ(a.expected, 200u);
  EXPECT_EQ(a.lost, 2u);
  EXPECT_EQ(a.duplicates, 4u);
  EXPECT_EQ(a.reconnects, 6u);
  EXPECT_EQ(a.ws_socket_bytes, 42000u);
  EXPECT_EQ(a.ws_socket_messages, 180u);
  EXPECT_EQ(a.latency_us.count(), 200u);
  // The 101's times merge like the hello's (compare.sh's servers are compared by them).
  EXPECT_EQ(a.upgrade_us.count(), 2u);
  EXPECT_EQ(a.upgrade_us.min(), 9000u);
  EXPECT_EQ(a.latency_us.min(), 1000u);
  EXPECT_GE(a.latency_us.max(), 5099u);
  // The merged median lies between the two workers' ranges, as if one process had seen all.
  EXPECT_LE(a.latency_us.percentile(50), 1099u * 129 / 128);
  EXPECT_GE(a.latency_us.percentile(51), 5000u);
  EXPECT_EQ(a.fanout_us, (std::vector<std::int64_t>{9, 3, 7}));
  EXPECT_EQ(a.longest_gap_us, 15000u);  // the max, not the sum
  EXPECT_EQ(a.server_closes["idle"], 2u);
  EXPECT_EQ(a.errors["connect"], 8u);
}

TEST(Progress, MergeSums) {
  progress a, b;
  a.connected = 5, a.messages = 50, a.interval_latency_us.record(10);
  b.connected = 7, b.errors = 1, b.interval_latency_us.record(2000);
  a.merge(progress::from_json(b.to_json()));
  EXPECT_EQ(a.connected, 12u);
  EXPECT_EQ(a.errors, 1u);
  EXPECT_EQ(a.interval_latency_us.count(), 2u);
  EXPECT_GE(a.interval_latency_us.percentile(99), 2000u);
}

}  // namespace
TEST(PlainJson, NumbersWithoutExponents) {
  const auto v =
      boost::json::parse(R"({"a":500.0,"b":[1.5,4348.827553604592,7],"c":"x\"y","d":{}})");
  EXPECT_EQ(plain_json(v), R"({"a":500,"b":[1.5,4348.82755360459,7],"c":"x\"y","d":{}})");
}

TEST(PlainJson, NoBinaryNoiseInDifferences) {
  EXPECT_EQ(plain_json(boost::json::value(0.29 - 0.25)), "0.04");
  EXPECT_EQ(plain_json(boost::json::value(0.1 + 0.2)), "0.3");
  EXPECT_EQ(plain_json(boost::json::value(1.5e-5)), "1.5e-05");
}

}  // namespace ringcast::load

namespace ringcast::load {
namespace {

// An unpaced run's arrivals are not a rate ("mean 239999/s" was the deliveries restated).
TEST(HumanSummary, ArrivalsOfAnUnpacedRunAreNotARate) {
  options opts;
  client_result r;
  for (int i = 0; i < 239999; ++i)
    r.arrivals.record(1000);
  const auto text = human_summary(make_report(opts, r, run_facts{}));
  EXPECT_NE(text.find("arrivals    not paced: 239999 within a second of their publish, 0 later"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("mean 239999"), std::string::npos) << text;
}

// Bytes per delivery: what the ws sockets received over the messages read; null when none was.
TEST(Report, WsWireBytesPerDelivery) {
  options opts;
  opts.ws_deflate = true;
  client_result r;
  r.ws_socket_bytes = 1500, r.ws_socket_messages = 12;
  const auto rep = make_report(opts, r, run_facts{});
  const auto& wire = rep.at("ws_wire").as_object();
  EXPECT_EQ(wire.at("bytes").as_uint64(), 1500u);
  EXPECT_DOUBLE_EQ(wire.at("bytes_per_delivery").as_double(), 125.0);
  EXPECT_TRUE(rep.at("config").as_object().at("ws_deflate").as_bool());
  EXPECT_NE(human_summary(rep).find("ws wire     1500 bytes received for 12 messages: 125 per "
                                    "delivery (permessage-deflate offered)"),
            std::string::npos)
      << human_summary(rep);
  EXPECT_TRUE(make_report(options{}, client_result{}, run_facts{})
                  .at("ws_wire")
                  .as_object()
                  .at("bytes_per_delivery")
                  .is_null());
}

}  // namespace
}  // namespace ringcast::load
