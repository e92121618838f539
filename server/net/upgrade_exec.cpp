#include "upgrade_exec.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>

#include <fmt/format.h>

#include "handover_version.hpp"

extern char** environ;

namespace ringcast {
namespace {

// The state of a node is far smaller; beyond this a descriptor is not ours.
constexpr std::size_t max_state_bytes = std::size_t{1} << 32;

std::vector<char*> c_strings(std::vector<std::string>& words) {
  std::vector<char*> out;
  for (auto& w : words)
    out.push_back(w.data());
  out.push_back(nullptr);
  return out;
}

struct child_outcome {
  bool ran = false;
  int status = 0;      // waitpid's
  std::string output;  // stdout and stderr together
  std::string error;   // why it could not run, or hung
};

// Runs `argv` with no descriptor of ours but its stdout/stderr pipe, and waits at most `limit`
// (a check that has not finished by then has hung: the upgrade is refused).
child_outcome run_child(std::vector<std::string> argv, std::chrono::milliseconds limit,
                        const loop_clock& clock) {
  child_outcome out;
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
    out.error = fmt::format("pipe: {}", std::strerror(errno));
    return out;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], 2);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);  // no client socket goes to the check
  pid_t pid = 0;
  auto c_argv = c_strings(argv);
  const int rc = ::posix_spawn(&pid, c_argv[0], &actions, nullptr, c_argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(pipe_fds[1]);
  if (rc != 0) {
    ::close(pipe_fds[0]);
    out.error = fmt::format("could not be run: {}", std::strerror(rc));
    return out;
  }
  const auto deadline = clock.now() + limit;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock.now());
    pollfd p{pipe_fds[0], POLLIN, 0};
    if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) == 0) {
      ::kill(pid, SIGKILL);
      out.error = fmt::format("did not finish within {} ms", limit.count());
      break;
    }
    char chunk[4096];
    const ssize_t n = ::read(pipe_fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (out.output.size() < 64 * 1024) out.output.append(chunk, static_cast<std::size_t>(n));
  }
  ::close(pipe_fds[0]);
  while (::waitpid(pid, &out.status, 0) < 0 && errno == EINTR) {
  }
  out.ran = out.error.empty();
  return out;
}

std::string first_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' '))
    text.remove_suffix(1);
  const auto nl = text.rfind('\n');
  return std::string(nl == std::string_view::npos ? text : text.substr(nl + 1));
}

std::string exited_badly(const std::string& what, const child_outcome& c) {
  if (!c.ran) return fmt::format("{} {}", what, c.error);
  if (WIFSIGNALED(c.status))
    return fmt::format("{} was killed by signal {}", what, WTERMSIG(c.status));
  return fmt::format("{} exited {}: {}", what, WEXITSTATUS(c.status), first_line(c.output));
}

}  // namespace

std::string own_binary_path() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  return n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string("/proc/self/exe");
}

std::vector<std::string> arguments_to_pass(int argc, const char* const* argv) {
  std::vector<std::string> out;
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    if (arg == "--upgrade-state-fd") {
      ++i;  // and its value
      continue;
    }
    if (arg.starts_with("--upgrade-state-fd=")) continue;
    out.emplace_back(arg);
  }
  return out;
}

std::string check_new_binary(const std::string& binary, const std::vector<std::string>& args,
                             std::chrono::milliseconds limit, const loop_clock& clock) {
  if (::access(binary.c_str(), X_OK) != 0)
    return fmt::format("{} is not executable: {}", binary, std::strerror(errno));
  const auto version = run_child({binary, "--version"}, limit, clock);
  if (!version.ran || !WIFEXITED(version.status) || WEXITSTATUS(version.status) != 0)
    return exited_badly(binary + " --version", version);
  const std::string wanted = fmt::format("state format {}\n", handover_format);
  if (version.output.find(wanted) == std::string::npos)
    return fmt::format("{} does not read state format {} (its --version: '{}')", binary,
                       handover_format, first_line(version.output));
  std::vector<std::string> check{binary};
  check.insert(check.end(), args.begin(), args.end());
  check.emplace_back("--check-config");
  const auto config = run_child(std::move(check), limit, clock);
  if (!config.ran || !WIFEXITED(config.status) || WEXITSTATUS(config.status) != 0)
    return exited_badly(binary + " --check-config", config);
  return {};
}

std::string exec_with_state(const std::string& binary, const std::vector<std::string>& args,
                            const std::string& state, const std::vector<int>& keep) {
  const int memfd = ::memfd_create("ringcast-upgrade-state", 0);
  if (memfd < 0) return fmt::format("memfd_create: {}", std::strerror(errno));
  std::size_t written = 0;
  while (written < state.size()) {
    const ssize_t n = ::write(memfd, state.data() + written, state.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = fmt::format("writing the state: {}", std::strerror(errno));
      ::close(memfd);
      return why;
    }
    written += static_cast<std::size_t>(n);
  }
  // Only what moves crosses exec: Asio's sockets are not opened close-on-exec.
  ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
  for (int fd : keep)
    ::fcntl(fd, F_SETFD, 0);
  ::fcntl(memfd, F_SETFD, 0);
  std::vector<std::string> argv{binary};
  argv.insert(argv.end(), args.begin(), args.end());
  argv.emplace_back("--upgrade-state-fd");
  argv.emplace_back(std::to_string(memfd));
  auto c_argv = c_strings(argv);
  // The new process starts with the signals it inherits blocked as ours are: none; and a SIGUSR2
  // before it serves is ignored (a disposition to ignore survives exec, a handler does not).
  sigset_t none;
  sigemptyset(&none);
  struct sigaction ignore {
  }, before{};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGUSR2, &ignore, &before);
  sigset_t old_mask;
  ::pthread_sigmask(SIG_SETMASK, &none, &old_mask);
  ::execve(binary.c_str(), c_argv.data(), environ);
  const std::string why = fmt::format("execve {}: {}", binary, std::strerror(errno));
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  ::sigaction(SIGUSR2, &before, nullptr);
  ::close(memfd);
  return why;
}

std::optional<std::string> read_state_fd(int fd, std::string& error) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    error = fmt::format("descriptor {}: {}", fd, std::strerror(errno));
    return std::nullopt;
  }
  if (!S_ISREG(st.st_mode) || static_cast<std::size_t>(st.st_size) > max_state_bytes) {
    error = fmt::format("descriptor {} is not an upgrade state", fd);
    ::close(fd);
    return std::nullopt;
  }
  std::string bytes(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < bytes.size()) {
    const ssize_t n = ::pread(fd, bytes.data() + got, bytes.size() - got, static_cast<off_t>(got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(fd);
  if (got != bytes.size()) {
    error = fmt::format("the state was cut short: {} of {} bytes", got, bytes.size());
    return std::nullopt;
  }
  return bytes;
}

}  // namespace ringcast
