// The process's section of the upgrade state (server/upgrade/process_handover) on any bytes: it
// refuses or accepts, never crashes, hangs or allocates out of proportion. Whatever it accepts is
// written back to the same bytes (one spelling of each state). The input is taken as a payload
// too, under a valid header, so that the fuzzer gets past the checksum.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "protocol/handover_version.hpp"
#include "upgrade/process_handover.hpp"

namespace {

void check_one(std::string_view bytes) {
  const auto r = ringcast::decode_handover(bytes);
  FUZZ_CHECK(r.value.has_value() != !r.error.empty());
  if (r) FUZZ_CHECK(ringcast::encode_handover(*r.value) == bytes);
}

void put(std::string& out, std::uint64_t v, int size) {
  for (int i = 0; i < size; ++i)
    out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  check_one(input);
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a, as the header has it
  for (unsigned char c : input) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  std::string framed = "RCHO";
  put(framed, ringcast::handover_format, 4);
  put(framed, size, 8);
  put(framed, h, 8);
  framed += input;
  check_one(framed);
  return 0;
}
