// --expect-zero-loss: whether a run proved that nothing was lost. Nothing measured proves nothing,
// so a run where no client connected or no publish was acknowledged fails too, as does one where
// the server refused a publish (a message it refused is one the clients never had a chance to get).
#pragma once

#include <string>
#include <vector>

#include "report.hpp"
#include "result.hpp"

namespace ringcast::load {

// Why the run does not show zero loss, one reason a line; empty: it does.
std::vector<std::string> zero_loss_failures(const client_result& r, const run_facts& f);

}  // namespace ringcast::load
