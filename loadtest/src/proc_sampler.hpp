#pragma once

#include <cstdint>
#include <optional>

namespace ringcast::load {

// The server's resident memory and CPU time, read from /proc (same machine, --server-pid).
struct proc_sample {
  std::uint64_t rss_kb = 0;  // VmRSS
  double cpu_s = 0;          // utime + stime
};
std::optional<proc_sample> sample_process(int pid);

}  // namespace ringcast::load
