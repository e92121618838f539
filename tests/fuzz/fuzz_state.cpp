// The handover state's reader (server/upgrade/state_codec) on any bytes: it refuses or accepts,
// never crashes, hangs or allocates out of proportion (ASan's allocation limit). Whatever it
// accepts is written back to the same bytes: the format has one spelling of each state, so
// nothing it read was misread. The input is taken as a body too, wrapped in a valid header, so
// that the fuzzer gets past the checksum and into the sections.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <zlib.h>

#include "fuzz_check.hpp"
#include "upgrade/state_bytes.hpp"
#include "upgrade/state_codec.hpp"

namespace {

void check_one(std::string_view bytes) {
  const auto r = ringcast::upgrade::read_state(bytes);
  FUZZ_CHECK(r.state.has_value() != !r.error.empty());
  if (r.state) FUZZ_CHECK(ringcast::upgrade::write_state(*r.state) == bytes);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  check_one(input);
  ringcast::upgrade::byte_writer framed;
  framed.bytes() += ringcast::upgrade::state_magic;
  framed.put(ringcast::upgrade::state_format);
  framed.put(static_cast<std::uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(data), static_cast<uInt>(size))));
  framed.put(static_cast<std::uint64_t>(size));
  framed.bytes() += input;
  check_one(framed.bytes());
  return 0;
}
