#include "verdict.hpp"

#include <gtest/gtest.h>

namespace ringcast::load {
namespace {

// A run that connected clients, had its publishes acknowledged and lost nothing.
struct good_run {
  client_result r;
  run_facts f;
  good_run() {
    r.connects = 10;
    f.publish_attempts = 5;
    f.published = 5;
  }
};

TEST(ZeroLoss, AGoodRunPasses) {
  good_run run;
  EXPECT_TRUE(zero_loss_failures(run.r, run.f).empty());
}

TEST(ZeroLoss, NoClientConnectedFails) {
  good_run run;
  run.r.connects = 0;
  run.r.errors["connect"] = 10;
  EXPECT_EQ(zero_loss_failures(run.r, run.f),
            std::vector<std::string>{"no client connected (connect x10)"});
}

TEST(ZeroLoss, NoPublishAcknowledgedFails) {
  good_run run;
  run.f.published = 0;
  run.f.publish_errors["publish_http_401"] = 5;
  EXPECT_EQ(
      zero_loss_failures(run.r, run.f),
      std::vector<std::string>{"no publish was acknowledged (5 attempted: publish_http_401 x5)"});
}

TEST(ZeroLoss, AnyRefusedPublishFails) {
  good_run run;
  run.f.publish_attempts = 6;
  run.f.publish_errors["publish_http_503"] = 1;
  EXPECT_EQ(zero_loss_failures(run.r, run.f),
            std::vector<std::string>{"1 of 6 publishes failed (publish_http_503 x1)"});
}

TEST(ZeroLoss, LossAndDuplicatesFail) {
  good_run run;
  run.r.lost = 2;
  run.r.duplicates = 1;
  EXPECT_EQ(zero_loss_failures(run.r, run.f),
            (std::vector<std::string>{"2 messages lost", "1 messages duplicated"}));
}

TEST(PublishFailures, AGoodRunHasNone) {
  good_run run;
  EXPECT_TRUE(publish_failures(run.f).empty());
  run.f.publish_attempts = 0;  // --publish-rate 0: nothing asked, nothing failed
  run.f.published = 0;
  EXPECT_TRUE(publish_failures(run.f).empty());
}

TEST(PublishFailures, NoTokenOrAWrongOneFailsTheRun) {
  good_run run;
  run.f.published = 0;
  run.f.publish_errors["publish_http_401"] = 5;
  EXPECT_EQ(publish_failures(run.f), std::vector<std::string>{"no publish was acknowledged (5 "
                                                              "attempted: publish_http_401 x5)"});
  run.f.publish_attempts = 7;
  run.f.published = 2;
  EXPECT_EQ(publish_failures(run.f),
            std::vector<std::string>{
                "5 of 7 publishes refused with 401: the admin token is missing or wrong"});
}

TEST(PublishFailures, OtherPublishErrorsAreLeftToExpectZeroLoss) {
  good_run run;
  run.f.publish_attempts = 6;
  run.f.publish_errors["publish_read"] = 1;
  EXPECT_TRUE(publish_failures(run.f).empty());
}

}  // namespace
}  // namespace ringcast::load
