// Whether a run's publishing worked, and with --expect-zero-loss whether it proved that nothing
// was lost. Nothing measured proves nothing,
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

// Why the run's publishing failed whatever the flags (exit 1 even without --expect-zero-loss):
// publishes were attempted and none was acknowledged, or the server refused some with 401 (a
// missing or wrong --admin-token: a set-up error, not a measurement). Empty: neither.
std::vector<std::string> publish_failures(const run_facts& f);

}  // namespace ringcast::load
