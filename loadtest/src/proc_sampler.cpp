#include "proc_sampler.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ringcast::load {

namespace {

// The first field of a thread's schedstat is its time on a CPU in nanoseconds.
double sched_cpu_s(const std::string& dir) {
  std::error_code ec;
  unsigned long long ns = 0;
  for (const auto& task : std::filesystem::directory_iterator(dir + "/task", ec)) {
    std::ifstream file(task.path() / "schedstat");
    unsigned long long on_cpu = 0;
    if (file >> on_cpu) ns += on_cpu;
  }
  return static_cast<double>(ns) / 1e9;
}

}  // namespace

std::optional<proc_sample> sample_process(int pid) {
  const auto dir = "/proc/" + std::to_string(pid);
  proc_sample s;
  std::ifstream status(dir + "/status");
  bool have_rss = false;
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmRSS:", 0) == 0) {
      s.rss_kb = std::stoull(line.substr(6));
      have_rss = true;
    }
  }
  std::ifstream rollup(dir + "/smaps_rollup");
  for (std::string line; std::getline(rollup, line);) {
    if (line.rfind("Pss:", 0) == 0) s.pss_kb = std::stoull(line.substr(4));
  }
  std::ifstream stat_file(dir + "/stat");
  std::string stat;
  std::getline(stat_file, stat);
  // The command name may hold spaces and parentheses: fields are counted after the last ')'.
  const auto paren = stat.rfind(')');
  if (!have_rss || paren == std::string::npos) return std::nullopt;
  std::istringstream fields(stat.substr(paren + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  // After ')' come field 3 (state) onwards; utime and stime are fields 14 and 15.
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i == 14) utime = std::stoull(field);
    if (i == 15) stime = std::stoull(field);
  }
  s.cpu_s = static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
  s.cpu_sched_s = sched_cpu_s(dir);
  return s;
}

std::optional<proc_sample> sample_processes(const std::vector<int>& pids) {
  if (pids.empty()) return std::nullopt;
  proc_sample total;
  for (const int pid : pids) {
    const auto s = sample_process(pid);
    if (!s) return std::nullopt;
    total.rss_kb += s->rss_kb;
    total.pss_kb += s->pss_kb;
    total.cpu_s += s->cpu_s;
    total.cpu_sched_s += s->cpu_sched_s;
  }
  return total;
}

std::optional<pid_problem> check_server_pid(int pid) {
  std::ifstream comm("/proc/" + std::to_string(pid) + "/comm");
  std::string name;
  if (!std::getline(comm, name))
    return pid_problem{true, "--server-pid " + std::to_string(pid) + ": no such process"};
  // The kernel cuts names at 15 characters: ringcast-bare-sender is "ringcast-bare-s".
  if (name.starts_with("ringcast") || name.starts_with("nginx")) return std::nullopt;
  return pid_problem{false, "--server-pid " + std::to_string(pid) + " is '" + name +
                                "', not a ringcast or nginx process: its CPU and memory are "
                                "reported as the server's"};
}

}  // namespace ringcast::load
