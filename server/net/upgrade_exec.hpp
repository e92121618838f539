// The process side of an upgrade in place (docs/operations.md, "Upgrading"): checking the new
// binary, handing it the state in a memfd, and exec'ing it in this process (same PID).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "core/loop_timers.hpp"
#include "upgrade/process_handover.hpp"

namespace ringcast {

// The path this process's binary was started from ("/proc/self/exe"): read at start-up, since a
// package upgrade replaces the file and the link then names a deleted one.
std::string own_binary_path();

// This process's arguments (argv[1..]) without the internal --upgrade-state-fd.
std::vector<std::string> arguments_to_pass(int argc, const char* const* argv);

// The new binary, opened once (close-on-exec): it is checked and exec'd through this descriptor,
// so a file put at its path after the check never runs. Closed with the object.
class opened_binary {
 public:
  // Opens `path`; on failure fd() is -1 and error() says why.
  explicit opened_binary(std::string path);
  ~opened_binary();
  opened_binary(const opened_binary&) = delete;
  opened_binary& operator=(const opened_binary&) = delete;
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  const std::string& error() const { return error_; }
  // A script ("#!"): its interpreter reads it from /dev/fd/N, so the descriptor must stay open
  // across the exec (an ELF binary's need not).
  bool script() const { return script_; }

 private:
  std::string path_, error_;
  int fd_ = -1;
  bool script_ = false;
};

// Runs `binary --version` (it must read our state format) and `binary ARGS --check-config`
// (the settings must start), each within `limit` on `clock`, from the opened file. Empty when
// both pass, else why not, in a sentence for the log.
std::string check_new_binary(const opened_binary& binary, const std::vector<std::string>& args,
                             std::chrono::milliseconds limit, const loop_clock& clock);

// Writes `state` to a memfd, marks every descriptor close-on-exec but the memfd and `keep`, and
// execs the opened file (fexecve) as `binary ARGS --upgrade-state-fd N`. Returns only on failure,
// with why; the descriptors stay open (and close-on-exec), so the process serves on.
std::string exec_with_state(const opened_binary& binary, const std::vector<std::string>& args,
                            const std::string& state, const std::vector<int>& keep);

// The new process: the old one's state from descriptor `fd` (closed after), or why not.
std::optional<std::string> read_state_fd(int fd, std::string& error);

// The new process: empty if every descriptor the state names is what it says (one to 1,024
// listening TCP sockets; each connection a connected TCP socket of its family; none named twice),
// else what is wrong, in a line. A state that fails this is refused before anything is adopted.
std::string check_handed_descriptors(const process_handover& state);

}  // namespace ringcast
