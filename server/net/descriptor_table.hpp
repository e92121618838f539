// The process's descriptor table, grown once before the event loops run. Linux doubles the table
// as descriptors are opened (64, 128, ... 32,768), and in a process of several threads every
// doubling waits for an RCU grace period (expand_fdtable → synchronize_rcu) inside the accept()
// that needs the new slot: 10–15 ms on a loaded 2-core machine, during which the accepting loop
// serves nothing and every connect that arrives waits (docs/performance.md, section 16). nginx's
// workers are single-threaded processes, which the kernel spares that wait.
#pragma once

#include <cstddef>

namespace ringcast {

// Grows the table to hold `count` descriptors (at most RLIMIT_NOFILE's soft limit) by duplicating
// `fd` to the highest of them and closing the copy. False, and logged, when it could not.
bool reserve_descriptor_table(int fd, std::size_t count);

}  // namespace ringcast
