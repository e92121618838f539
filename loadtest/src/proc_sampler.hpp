#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ringcast::load {

// The server's resident memory and CPU time, read from /proc (same machine, --server-pid).
struct proc_sample {
  std::uint64_t rss_kb = 0;  // VmRSS
  // Pss from smaps_rollup: shared pages split between the processes that map them, so a sum
  // over nginx's master and workers counts its shared memory zone once (0 if unreadable).
  std::uint64_t pss_kb = 0;
  double cpu_s = 0;  // utime + stime (in clock ticks: 10 ms steps)
  // The same from the scheduler, in nanoseconds: /proc/PID/task/*/schedstat, summed over the
  // live threads (the server's threads live as long as it). 0 where the kernel has no schedstat.
  double cpu_sched_s = 0;
};
std::optional<proc_sample> sample_process(int pid);
// Summed over several processes (nginx: master and workers); nullopt when any one is gone.
std::optional<proc_sample> sample_processes(const std::vector<int>& pids);

// What --server-pid should be told about `pid`, or nothing when it names a server under test
// (a ringcast or nginx process, by /proc/PID/comm). `fatal`: there is no such process.
struct pid_problem {
  bool fatal = false;
  std::string message;
};
std::optional<pid_problem> check_server_pid(int pid);

}  // namespace ringcast::load
