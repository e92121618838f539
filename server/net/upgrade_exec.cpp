#include "net/upgrade_exec.hpp"

#include <fcntl.h>
#include <linux/close_range.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string_view>
#include <unordered_set>

#include <fmt/format.h>

#include "protocol/handover_version.hpp"

extern char** environ;

namespace ringcast {
namespace {

// The state of a node is far smaller; beyond this a descriptor is not ours.
constexpr std::size_t max_state_bytes = std::size_t{1} << 32;
// A listening socket per loop of the old process, and a process has at most --threads' 1024 (one
// that had fewer took over as many as it was handed: the count never grows past the most loops).
constexpr std::size_t max_listeners = 1024;

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

// The opened binary as the child sees it: dup'd to this descriptor, run by its /proc path.
constexpr int child_binary_fd = 3;

// Runs the opened `binary` with `argv` (argv[0] its path, for its messages), with no descriptor
// of ours but its stdout/stderr pipe and the binary itself, and waits at most `limit` (a check
// that has not finished by then has hung: the upgrade is refused).
child_outcome run_child(const opened_binary& binary, std::vector<std::string> argv,
                        std::chrono::milliseconds limit, const loop_clock& clock) {
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
  posix_spawn_file_actions_adddup2(&actions, binary.fd(), child_binary_fd);
  // No client socket goes to the check.
  posix_spawn_file_actions_addclosefrom_np(&actions, child_binary_fd + 1);
  pid_t pid = 0;
  auto c_argv = c_strings(argv);
  const std::string run_path = fmt::format("/proc/self/fd/{}", child_binary_fd);
  const int rc = ::posix_spawn(&pid, run_path.c_str(), &actions, nullptr, c_argv.data(), environ);
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

int socket_option(int fd, int option) {
  int value = -1;
  socklen_t size = sizeof value;
  return ::getsockopt(fd, SOL_SOCKET, option, &value, &size) == 0 ? value : -1;
}

// Why descriptor `fd` is not a TCP socket of the family `v6` names, listening or connected as
// `listening` says; empty if it is.
std::string not_a_tcp_socket(int fd, bool v6, bool listening) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fmt::format("descriptor {}: {}", fd, std::strerror(errno));
  if (!S_ISSOCK(st.st_mode)) return fmt::format("descriptor {} is not a socket", fd);
  if (socket_option(fd, SO_TYPE) != SOCK_STREAM || socket_option(fd, SO_PROTOCOL) != IPPROTO_TCP)
    return fmt::format("descriptor {} is not a TCP socket", fd);
  if (socket_option(fd, SO_DOMAIN) != (v6 ? AF_INET6 : AF_INET))
    return fmt::format("descriptor {} is not an {} socket", fd, v6 ? "IPv6" : "IPv4");
  if ((socket_option(fd, SO_ACCEPTCONN) == 1) != listening)
    return fmt::format("descriptor {} is {}a listening socket", fd, listening ? "not " : "");
  return {};
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

opened_binary::opened_binary(std::string path) : path_(std::move(path)) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    error_ = fmt::format("{} is not executable: {}", path_, std::strerror(errno));
    return;
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    error_ = fmt::format("{} is not a regular file", path_);
  } else if ((st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) == 0) {
    error_ = fmt::format("{} is not executable", path_);
  }
  char magic[2] = {};
  script_ = ::pread(fd_, magic, sizeof magic, 0) == 2 && magic[0] == '#' && magic[1] == '!';
  if (!error_.empty()) {
    ::close(fd_);
    fd_ = -1;
  }
}

opened_binary::~opened_binary() {
  if (fd_ >= 0) ::close(fd_);
}

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

std::string check_new_binary(const opened_binary& opened, const std::vector<std::string>& args,
                             std::chrono::milliseconds limit, const loop_clock& clock) {
  if (opened.fd() < 0) return opened.error();
  const std::string& binary = opened.path();
  const auto version = run_child(opened, {binary, "--version"}, limit, clock);
  if (!version.ran || !WIFEXITED(version.status) || WEXITSTATUS(version.status) != 0)
    return exited_badly(binary + " --version", version);
  const std::string wanted = fmt::format("state format {}\n", handover_format);
  if (version.output.find(wanted) == std::string::npos)
    return fmt::format("{} does not read state format {} (its --version: '{}')", binary,
                       handover_format, first_line(version.output));
  std::vector<std::string> check{binary};
  check.insert(check.end(), args.begin(), args.end());
  check.emplace_back("--check-config");
  const auto config = run_child(opened, std::move(check), limit, clock);
  if (!config.ran || !WIFEXITED(config.status) || WEXITSTATUS(config.status) != 0)
    return exited_badly(binary + " --check-config", config);
  return {};
}

std::string exec_with_state(const opened_binary& opened, const std::vector<std::string>& args,
                            const std::string& state, const std::vector<int>& keep) {
  if (opened.fd() < 0) return opened.error();
  const std::string& binary = opened.path();
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
  if (opened.script()) ::fcntl(opened.fd(), F_SETFD, 0);
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
  ::fexecve(opened.fd(), c_argv.data(), environ);
  const std::string why = fmt::format("fexecve {}: {}", binary, std::strerror(errno));
  if (opened.script()) ::fcntl(opened.fd(), F_SETFD, FD_CLOEXEC);
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

std::string check_handed_descriptors(const process_handover& state) {
  if (state.listeners.empty()) return "no listening socket";
  if (state.listeners.size() > max_listeners)
    return fmt::format("{} listening sockets, more than {}", state.listeners.size(), max_listeners);
  std::unordered_set<int> seen;
  auto check = [&seen](const char* what, int fd, bool v6, bool listening) -> std::string {
    if (!seen.insert(fd).second) return fmt::format("{}: descriptor {} is named twice", what, fd);
    const std::string why = not_a_tcp_socket(fd, v6, listening);
    return why.empty() ? why : fmt::format("{}: {}", what, why);
  };
  std::string why;
  for (std::size_t i = 0; why.empty() && i < state.listeners.size(); ++i)
    why = check("the listener", state.listeners[i].fd, state.listeners[i].v6, true);
  for (std::size_t i = 0; why.empty() && i < state.streams.size(); ++i)
    why = check("a WebSocket or SSE connection", state.streams[i].fd, state.streams[i].v6, false);
  for (std::size_t i = 0; why.empty() && i < state.http.size(); ++i)
    why = check("an HTTP connection", state.http[i].fd, state.http[i].v6, false);
  return why;
}

}  // namespace ringcast
