// parse_client_params on any request target. A success has a valid user and sid, a since that
// spells back, at most 32 distinct valid channels, and the canonical target rebuilt from it parses
// back to the same parameters; a failure says why.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "fuzz_check.hpp"
#include "protocol/client_params.hpp"

namespace {

using ringcast::client_params;

void check_contract(const client_params& p) {
  FUZZ_CHECK(ringcast::valid_identifier(p.user));
  FUZZ_CHECK(ringcast::valid_identifier(p.sid));
  FUZZ_CHECK(p.channels.size() <= ringcast::max_channels_per_client);
  FUZZ_CHECK(std::set<std::string>(p.channels.begin(), p.channels.end()).size() ==
             p.channels.size());
  for (const auto& channel : p.channels)
    FUZZ_CHECK(ringcast::valid_identifier(channel));
  // rewind: a count of 1-100 or a duration above 0, never both; the wall-clock bound is not set
  // by the parser.
  FUZZ_CHECK(!(p.rewind_count && p.rewind_for));
  if (p.rewind_count)
    FUZZ_CHECK(*p.rewind_count >= 1 && *p.rewind_count <= ringcast::max_rewind_count);
  if (p.rewind_for) FUZZ_CHECK(p.rewind_for->count() > 0);
  FUZZ_CHECK(!p.rewind_after_ms);
}

// Identifiers need no percent-encoding, so the parameters can be written out literally.
std::string canonical_target(const client_params& p) {
  std::string target = "/ws?user=" + p.user + "&sid=" + p.sid + "&channels=";
  for (std::size_t i = 0; i < p.channels.size(); ++i)
    target += (i ? "," : "") + p.channels[i];
  if (p.since) target += "&since=" + std::to_string(*p.since);
  return target;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view target(reinterpret_cast<const char*>(data), size);
  const auto parsed = ringcast::parse_client_params(target);
  if (!parsed) {
    FUZZ_CHECK(!parsed.error.empty());
    return 0;
  }
  const client_params& p = *parsed.value;
  check_contract(p);
  const auto again = ringcast::parse_client_params(canonical_target(p));
  FUZZ_CHECK(again);
  FUZZ_CHECK(again.value->user == p.user);
  FUZZ_CHECK(again.value->sid == p.sid);
  FUZZ_CHECK(again.value->since == p.since);
  FUZZ_CHECK(again.value->channels == p.channels);
  return 0;
}
