// --server-pid's check: a ringcast or nginx process passes, another process is named in a warning,
// a pid with no process is an error. And the sampler's fine CPU clock (schedstat).
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "proc_sampler.hpp"

namespace ringcast::load {
namespace {

// A child process named `name` (as /proc/PID/comm shows it) until it is killed.
class named_child {
 public:
  explicit named_child(const char* name) {
    int ready[2];
    EXPECT_EQ(::pipe(ready), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::prctl(PR_SET_NAME, name);
      (void)!::write(ready[1], "x", 1);
      for (;;)
        ::pause();
    }
    char byte;
    EXPECT_EQ(::read(ready[0], &byte, 1), 1);
    ::close(ready[0]);
    ::close(ready[1]);
  }
  ~named_child() {
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_ = -1;
};

TEST(ServerPid, RingcastAndNginxProcessesPass) {
  named_child ringcast("ringcast");
  named_child bare("ringcast-bare-sender");  // cut to 15 characters by the kernel
  named_child nginx("nginx");
  EXPECT_FALSE(check_server_pid(ringcast.pid()));
  EXPECT_FALSE(check_server_pid(bare.pid()));
  EXPECT_FALSE(check_server_pid(nginx.pid()));
}

TEST(ServerPid, AnotherProcessIsNamedInAWarning) {
  named_child shell("bash");
  const auto problem = check_server_pid(shell.pid());
  ASSERT_TRUE(problem);
  EXPECT_FALSE(problem->fatal);
  EXPECT_EQ(problem->message, "--server-pid " + std::to_string(shell.pid()) +
                                  " is 'bash', not a ringcast or nginx process: its CPU and "
                                  "memory are reported as the server's");
}

TEST(ServerPid, NoSuchProcessIsAnError) {
  pid_t gone = 0;
  {
    named_child child("ringcast");
    gone = child.pid();
  }  // killed and reaped: the pid names no process (until the kernel reuses it, far later)
  const auto problem = check_server_pid(gone);
  ASSERT_TRUE(problem);
  EXPECT_TRUE(problem->fatal);
  EXPECT_EQ(problem->message, "--server-pid " + std::to_string(gone) + ": no such process");
}

// Burns `seconds` of this thread's CPU time.
void spin_cpu(double seconds) {
  timespec start{}, now{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
  volatile unsigned long sink = 0;
  do {
    for (int i = 0; i < 10000; ++i)
      sink = sink + i;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  } while ((now.tv_sec - start.tv_sec) + (now.tv_nsec - start.tv_nsec) / 1e9 < seconds);
}

TEST(ProcSample, SchedulerCpuTimeSeesWhatTicksCannot) {
  const auto before = sample_process(::getpid());
  ASSERT_TRUE(before);
  if (before->cpu_sched_s == 0) GTEST_SKIP() << "no /proc/PID/task/*/schedstat on this kernel";
  spin_cpu(0.05);
  const auto after = sample_process(::getpid());
  ASSERT_TRUE(after);
  const double spent = after->cpu_sched_s - before->cpu_sched_s;
  EXPECT_GE(spent, 0.05);
  EXPECT_LT(spent, 0.5);
  // The same clock as utime + stime, only finer: they agree to a few ticks.
  EXPECT_NEAR(after->cpu_sched_s, after->cpu_s, 0.1 + 0.1 * after->cpu_s);
}

}  // namespace
}  // namespace ringcast::load
