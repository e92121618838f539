// Every parser of outside input, fed random and mutated input: it must not crash, a failure must
// say why, and a success must uphold the contract (valid identifiers, at most 32 distinct
// channels). A deterministic stand-in for the libFuzzer targets that come later.
#include <cctype>
#include <random>
#include <set>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "protocol/admin_request.hpp"
#include "protocol/client_message.hpp"
#include "protocol/client_params.hpp"
#include "protocol/duration.hpp"
#include "protocol/origin_policy.hpp"

namespace ringcast {
namespace {

// The bytes mutations draw from: mostly the characters the grammars care about, so that mutants
// stay near the interesting boundaries, and NUL, DEL and 0xFF. The size is given: a string_view of
// the bare literal would stop at the embedded NUL and lose the last three.
constexpr char alphabet_bytes[] = "{}[]\",:%+-.09aAzZ_@& =?/\\e\x00\xff\x7f";
constexpr std::string_view alphabet{alphabet_bytes, sizeof alphabet_bytes - 1};

// Mutates a valid seed: replaces, inserts or deletes a few bytes drawn from `alphabet`.
std::string mutate(std::string text, std::mt19937& rng) {
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n)(rng); };
  for (std::size_t edits = 1 + pick(3); edits > 0; --edits) {
    const char c = alphabet[pick(alphabet.size() - 1)];
    const std::size_t at = pick(text.size());
    switch (pick(2)) {
      case 0:
        if (at < text.size()) text[at] = c;
        break;
      case 1:
        text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
        break;
      default:
        if (at < text.size()) text.erase(at, 1);
    }
  }
  return text;
}

void expect_valid_channels(const std::vector<std::string>& channels, std::string_view input) {
  EXPECT_LE(channels.size(), max_channels_per_client) << input;
  EXPECT_EQ(std::set<std::string>(channels.begin(), channels.end()).size(), channels.size())
      << input;
  for (const auto& c : channels)
    EXPECT_TRUE(valid_identifier(c)) << input;
}

template <class T>
void expect_reason_on_failure(const parsed<T>& p, std::string_view input) {
  if (!p) {
    EXPECT_FALSE(p.error.empty()) << input;
  }
}

// The alphabet is the 29 bytes written above, and mutation reaches every one of them (the
// string_view of the bare literal had 26: NUL, 0xFF and 0x7F were never generated).
TEST(RandomInput, MutationsUseTheWholeAlphabet) {
  EXPECT_EQ(alphabet.size(), 29u);
  for (const char c : {'\0', '\x7f', '\xff', '{', 'e'})
    EXPECT_NE(alphabet.find(c), std::string_view::npos) << static_cast<int>(c);
  std::mt19937 rng(5);
  std::set<char> seen;
  const std::string seed = "seed";
  for (int i = 0; i < 5'000; ++i) {
    const std::string mutant = mutate(seed, rng);
    for (const char c : mutant)
      if (seed.find(c) == std::string::npos) seen.insert(c);
  }
  std::set<char> expected(alphabet.begin(), alphabet.end());
  for (const char c : seed)
    expected.erase(c);
  EXPECT_EQ(seen, expected);
  EXPECT_TRUE(seen.contains('\0') && seen.contains('\x7f') && seen.contains('\xff'));
}

TEST(RandomInput, ClientParams) {
  std::mt19937 rng(1);
  const std::string seed = "/ws?user=alice&sid=t1&since=41&channels=a,b,c%2Cd&token=x";
  int accepted = 0;
  for (int i = 0; i < 20'000; ++i) {
    const std::string input = mutate(seed, rng);
    const auto p = parse_client_params(input);
    expect_reason_on_failure(p, input);
    if (!p) continue;
    ++accepted;
    EXPECT_TRUE(valid_identifier(p.value->user)) << input;
    EXPECT_TRUE(valid_identifier(p.value->sid)) << input;
    expect_valid_channels(p.value->channels, input);
  }
  EXPECT_GT(accepted, 100);  // the success path was exercised, not just the refusals
}

TEST(RandomInput, ClientMessages) {
  std::mt19937 rng(2);
  const std::string seeds[] = {R"({"type":"ack","id":42})",
                               R"({"type":"subscribe","channels":["a","b"]})",
                               R"({"type":"unsubscribe","channels":["a"]})", R"({"type":"ping"})"};
  int accepted = 0;
  for (int i = 0; i < 20'000; ++i) {
    const std::string input = mutate(seeds[i % 4], rng);
    const auto m = parse_client_message(input);
    expect_reason_on_failure(m, input);
    if (!m) continue;
    ++accepted;
    if (const auto* s = std::get_if<subscribe_message>(&*m.value))
      expect_valid_channels(s->channels, input);
    if (const auto* u = std::get_if<unsubscribe_message>(&*m.value))
      expect_valid_channels(u->channels, input);
  }
  EXPECT_GT(accepted, 100);
}

TEST(RandomInput, AdminBodies) {
  std::mt19937 rng(3);
  int accepted = 0;
  for (int i = 0; i < 20'000; ++i) {
    const std::string input = mutate(R"({"data":{"x":[1,2.5,"s"]},"channel":"news"})", rng);
    const auto p = parse_publish_request(input);
    expect_reason_on_failure(p, input);
    if (p) {
      ++accepted;
      EXPECT_FALSE(p.value->channel && p.value->user) << input;
      if (p.value->channel) {
        EXPECT_TRUE(valid_identifier(*p.value->channel)) << input;
      }
      if (p.value->user) {
        EXPECT_TRUE(valid_identifier(*p.value->user)) << input;
      }
    }
    const auto k = parse_kick_request(mutate(R"({"user":"alice"})", rng));
    if (k) {
      EXPECT_TRUE(valid_identifier(k.value->user));
    }
  }
  EXPECT_GT(accepted, 100);
}

TEST(RandomInput, DurationsRoundTrip) {
  std::mt19937 rng(4);
  int accepted = 0;
  for (int i = 0; i < 20'000; ++i) {
    const std::string input = mutate("1500ms", rng);
    const auto d = parse_duration(input);
    expect_reason_on_failure(d, input);
    if (!d) continue;
    ++accepted;
    EXPECT_GE(d.value->count(), 0) << input;
    EXPECT_EQ(parse_duration(format_duration(*d.value)).value, d.value) << input;
  }
  EXPECT_GT(accepted, 100);
}

// An Origin header is the browser's, but a non-browser client can send anything in it: only a
// subdomain of the listed name, with its scheme and port, may pass the wildcard.
TEST(RandomInput, Origins) {
  std::mt19937 rng(7);
  const auto policy = parse_allowed_origins("https://*.shop.example:8443");
  ASSERT_TRUE(policy);
  int accepted = 0;
  for (int i = 0; i < 20'000; ++i) {
    const std::string input = mutate("https://eu.shop.example:8443", rng);
    if (judge_origin(*policy.value, input, {"https", "push.example"}) == origin_verdict::refused)
      continue;
    ++accepted;
    std::string lower = input;
    for (char& c : lower)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    EXPECT_TRUE(lower.starts_with("https://")) << input;
    EXPECT_TRUE(lower.ends_with(".shop.example:8443")) << input;
    EXPECT_GT(lower.size(), std::string_view("https://.shop.example:8443").size()) << input;
    EXPECT_EQ(lower.find_first_of("/@\\?#", 8), std::string::npos) << input;
    EXPECT_EQ(input.find('\0'), std::string::npos) << input;
  }
  EXPECT_GT(accepted, 100);
}

}  // namespace
}  // namespace ringcast
