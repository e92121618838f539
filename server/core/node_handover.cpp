// The node's part of the handover to a new binary (docs/operations.md, "Upgrading"): the
// sequencer, every loop's hub, the messages they name, and the backplane's own (alone: the
// schedule). Read and written with every loop stopped, or before they run.
#include "core/log.hpp"
#include "core/node.hpp"
#include "upgrade/state_codec.hpp"

namespace ringcast {

upgrade::handover_state node::capture(handover_messages& messages) const {
  upgrade::handover_state state;
  ids_.capture(state);
  for (const node_loop& l : loops_)
    state.loops.push_back(l.sessions().capture(l.now(), messages));
  state.messages = capture_messages(messages);
  backplane_->capture(state, home().now());
  return state;
}

bool node::restore(const std::string& bytes, handover_messages& messages) {
  auto read = upgrade::read_state(bytes);
  if (!read.state) {
    log_warn("upgrade: the node's state is refused: {}", read.error);
    return false;
  }
  upgrade::handover_state& state = *read.state;
  if (state.loops.size() != loops_.size()) {
    log_warn("upgrade: the node's state is of {} event loops, this process has {}: not restored",
             state.loops.size(), loops_.size());
    return false;
  }
  ids_.restore(state);
  messages = restore_messages(state.messages);
  for (std::size_t i = 0; i < loops_.size(); ++i)
    loops_[i].sessions().restore(state.loops[i], messages, loops_[i].now());
  backplane_->restore(state, home().now());
  return true;
}

}  // namespace ringcast
