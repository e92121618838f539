// parse_config on any command line (the input split at NUL bytes into arguments). It ends in a
// usable config, in --help (exit 0, text on stdout), or in exit status 2 with one
// "ringcast: ..." line on stderr; it never throws. A config keeps every documented bound.
#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "config/config.hpp"
#include "config/parse_config.hpp"
#include "fuzz_check.hpp"

namespace {

constexpr std::size_t max_arguments = 64;

void check_config(const ringcast::config& c) {
  FUZZ_CHECK(c.threads >= 1 && c.threads <= 1024);
  FUZZ_CHECK(c.tick.count() >= 1 && c.tick.count() <= 60'000);
  FUZZ_CHECK(c.wheel_slots >= 16 && c.wheel_slots <= 65'536 && std::has_single_bit(c.wheel_slots));
  for (const auto t :
       {c.poll_timeout, c.heartbeat, c.idle_timeout, c.session_ttl, c.handshake_timeout})
    FUZZ_CHECK(t >= c.tick);
  for (const auto t : {c.max_connection_age, c.drain})
    FUZZ_CHECK(t.count() == 0 || t >= c.tick);
  FUZZ_CHECK(c.history >= 1 && c.max_queue >= 1 && c.max_body >= 1 && c.max_connections >= 1);
  FUZZ_CHECK(!c.admin_token.empty());
  FUZZ_CHECK(std::all_of(c.admin_token.begin(), c.admin_token.end(),
                         [](char ch) { return ch > ' ' && ch < 0x7f; }));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> arguments{"ringcast"};
  for (std::size_t start = 0; start <= text.size() && arguments.size() <= max_arguments;) {
    const auto end = std::min(text.find('\0', start), text.size());
    arguments.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  if (size == 0) arguments.pop_back();
  std::vector<const char*> argv;
  for (const auto& a : arguments)
    argv.push_back(a.c_str());

  std::ostringstream out, err;
  const auto outcome = ringcast::parse_config(
      static_cast<int>(argv.size()), argv.data(), out, err, [](const char* name) {
        return std::strcmp(name, "RINGCAST_ADMIN_TOKEN") == 0 ? "fuzz" : nullptr;
      });
  if (outcome.cfg) {
    FUZZ_CHECK(outcome.exit_status == 0 && out.str().empty() && err.str().empty());
    check_config(*outcome.cfg);
  } else if (outcome.exit_status == 0) {
    FUZZ_CHECK(out.str().starts_with("Usage: ringcast") && err.str().empty());
  } else {
    FUZZ_CHECK(outcome.exit_status == 2 && out.str().empty());
    const std::string line = err.str();
    FUZZ_CHECK(line.starts_with("ringcast: ") && line.ends_with("\n"));
    // One line, unless an argument itself brought a line break into the echoed value.
    if (text.find_first_of("\r\n") == std::string::npos)
      FUZZ_CHECK(std::count(line.begin(), line.end(), '\n') == 1);
  }
  return 0;
}
