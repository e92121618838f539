#include "protocol/message_label.hpp"

#include <string>

#include <gtest/gtest.h>

namespace ringcast {
namespace {

std::string envelope(const std::string& data) {
  return R"({"type":"message","id":1,"channel":"*","ts":2,"data":)" + data + "}";
}

TEST(MessageLabel, TheTitleWhenTheDataHasOne) {
  EXPECT_EQ(message_label(envelope(R"({"text":"x","title":"Spring sale"})")), "Spring sale");
}

TEST(MessageLabel, ElseTheStartOfTheData) {
  EXPECT_EQ(message_label(envelope(R"({"text":"20% off"})")), R"({"text":"20% off"})");
  EXPECT_EQ(message_label(envelope(R"({"title":5})")), R"({"title":5})");
  EXPECT_EQ(message_label(envelope(R"("plain text")")), R"("plain text")");
  EXPECT_EQ(message_label(envelope("[1,2]")), "[1,2]");
}

TEST(MessageLabel, CutAtEightyCharactersNeverInsideOne) {
  const std::string long_title(100, 'a');
  EXPECT_EQ(message_label(envelope(R"({"title":")" + long_title + R"("})")),
            std::string(80, 'a') + "…");
  std::string accents;  // 100 × "é", two bytes each
  for (int i = 0; i < 100; ++i)
    accents += "\xC3\xA9";
  EXPECT_EQ(message_label(envelope(R"({"title":")" + accents + R"("})")),
            accents.substr(0, 160) + "…");
  EXPECT_EQ(message_label(envelope(R"({"title":")" + std::string(80, 'b') + R"("})")),
            std::string(80, 'b'));
}

TEST(MessageLabel, NoDataNoLabel) {
  EXPECT_EQ(message_label(R"({"type":"expired","id":1})"), "");
  EXPECT_EQ(message_label("not json"), "");
}

}  // namespace
}  // namespace ringcast
