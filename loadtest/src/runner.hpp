#pragma once

#include "flags.hpp"

namespace ringcast::load {

// Runs the whole test described by `opts` and prints the report (JSON on stdout, the rest on
// stderr). With --procs 1 everything shares one io_context; with more, this process forks the
// client workers and itself publishes, watches the server and merges the workers' results.
// Returns the process exit status.
int run(const options& opts, std::uint64_t nofile_limit);

}  // namespace ringcast::load
