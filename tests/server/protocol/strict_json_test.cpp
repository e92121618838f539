// parse_strict_json (server/protocol/strict_json.*): one pass that builds the value as
// boost::json::parse does and refuses a key given twice in one object.
#include "protocol/strict_json.hpp"

#include <string>

#include <gtest/gtest.h>
#include <boost/json/parse.hpp>

namespace ringcast {
namespace {

std::string error_of(std::string_view text) {
  return parse_strict_json(text).error;
}

TEST(StrictJson, BuildsTheSameValueAsBoostJsonParse) {
  for (std::string_view text :
       {R"({"a":[1,-2,3.5,true,null,"x"],"b":{"c":{"d":"\u00e9"}},"e":18446744073709551615})",
        R"(  [ {"k":1}, {"k":2} ]  )", R"("a string")", "42"}) {
    auto strict = parse_strict_json(text);
    ASSERT_TRUE(strict) << text << ": " << strict.error;
    EXPECT_EQ(*strict.value, boost::json::parse(text)) << text;
  }
}

TEST(StrictJson, RefusesAKeyGivenTwiceAtAnyDepthEvenWhenEscaped) {
  EXPECT_EQ(error_of(R"({"ttl":"1h","ttl":"2h"})"), "the key \"ttl\" is given twice");
  EXPECT_EQ(error_of(R"({"a":[{"b":{"c":1,"c":2}}]})"), "the key \"c\" is given twice");
  EXPECT_EQ(error_of(R"({"data":1,"da\u0074a":2})"), "the key \"data\" is given twice");
}

TEST(StrictJson, TheSameKeyInTwoObjectsIsNoDuplicate) {
  EXPECT_TRUE(parse_strict_json(R"({"a":{"a":1},"b":[{"a":1},{"a":2}]})"));
}

TEST(StrictJson, RefusesWhatIsNotOneCompleteDocument) {
  for (std::string_view text : {"", "{", R"({"a":1} {"b":2})", R"({"a":1}x)", "{'a':1}", "[1,]"})
    EXPECT_EQ(error_of(text), "invalid JSON") << text;
}

TEST(StrictJson, RefusesNestingDeeperThanBoostJsonDoes) {
  EXPECT_EQ(error_of(std::string(100, '[') + std::string(100, ']')), "invalid JSON");
}

}  // namespace
}  // namespace ringcast
