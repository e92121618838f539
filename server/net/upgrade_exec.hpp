// The process side of an upgrade in place (docs/operations.md, "Upgrading"): checking the new
// binary, handing it the state in a memfd, and exec'ing it in this process (same PID).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "loop_timers.hpp"

namespace ringcast {

// The path this process's binary was started from ("/proc/self/exe"): read at start-up, since a
// package upgrade replaces the file and the link then names a deleted one.
std::string own_binary_path();

// This process's arguments (argv[1..]) without the internal --upgrade-state-fd.
std::vector<std::string> arguments_to_pass(int argc, const char* const* argv);

// Runs `binary --version` (it must read our state format) and `binary ARGS --check-config`
// (the settings must start), each within `limit` on `clock`. Empty when both pass, else why not,
// in a sentence for the log.
std::string check_new_binary(const std::string& binary, const std::vector<std::string>& args,
                             std::chrono::milliseconds limit, const loop_clock& clock);

// Writes `state` to a memfd, marks every descriptor close-on-exec but the memfd and `keep`, and
// execs `binary ARGS --upgrade-state-fd N`. Returns only on failure, with why; the descriptors
// stay open (and close-on-exec), so the process serves on.
std::string exec_with_state(const std::string& binary, const std::vector<std::string>& args,
                            const std::string& state, const std::vector<int>& keep);

// The new process: the old one's state from descriptor `fd` (closed after), or why not.
std::optional<std::string> read_state_fd(int fd, std::string& error);

}  // namespace ringcast
