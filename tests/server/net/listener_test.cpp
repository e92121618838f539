// The listener grows the process's descriptor table for --max-connections when it opens, before
// the loops run: growing it later, in a process of several threads, stalls the accept() that needs
// the room for an RCU grace period (net/descriptor_table.hpp).
#include <sys/resource.h>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "config/config.hpp"
#include "net/connection_limit.hpp"
#include "net/listener.hpp"
#include "test_loop.hpp"

namespace ringcast {
namespace {

// Descriptors the table holds now (/proc/self/status "FDSize").
std::size_t descriptor_table_size() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("FDSize:")) return std::stoul(line.substr(7));
  return 0;
}

TEST(Listener, GrowsTheDescriptorTableForMaxConnectionsWhenItOpens) {
  constexpr std::size_t max_connections = 6000;
  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < 2 * max_connections)
    GTEST_SKIP() << "RLIMIT_NOFILE's hard limit is " << limit.rlim_max;
  const rlimit raised{std::max<rlim_t>(limit.rlim_cur, 2 * max_connections), limit.rlim_max};
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &raised), 0);
  const std::size_t before = descriptor_table_size();
  if (before >= max_connections) GTEST_SKIP() << "the table holds " << before << " already";

  test::test_loop loop{config{}};
  connection_limit connections(max_connections);
  listener l({&loop}, connections);
  loop.run([&] {
    EXPECT_TRUE(l.open("127.0.0.1", 0));
    EXPECT_GE(descriptor_table_size(), max_connections) << "before: " << before;
    l.close();
    return 0;
  });
  // The close (posted), then the accept it cancelled, have run before `l` goes.
  loop.run([] { return 0; });
  loop.run([] { return 0; });
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &limit), 0);
}

}  // namespace
}  // namespace ringcast
