#include "core/handover_messages.hpp"

#include <limits>

#include "core/subscriber.hpp"
#include "upgrade/record_walk.hpp"

namespace ringcast {

// The state keeps enums as numbers: these are its meaning (a change bumps upgrade::state_format).
static_assert(static_cast<int>(audience::broadcast) == 0 &&
              static_cast<int>(audience::channel) == 1 && static_cast<int>(audience::user) == 2 &&
              static_cast<int>(audience::users) == 3 && upgrade::max_audience == 3);
static_assert(static_cast<int>(transport::ws) == 0 && static_cast<int>(transport::sse) == 1 &&
              static_cast<int>(transport::poll) == 2 && upgrade::max_transport == 2);

std::vector<upgrade::message_state> capture_messages(const handover_messages& messages) {
  std::vector<upgrade::message_state> out(messages.size());
  auto state = out.begin();
  for (const auto& [id, m] : messages)
    upgrade::carry(static_cast<const message::record&>(*m), *state++);
  return out;
}

handover_messages restore_messages(const std::vector<upgrade::message_state>& messages) {
  handover_messages out;
  for (const auto& s : messages) {
    auto m = std::make_shared<message>();
    upgrade::carry(s, static_cast<message::record&>(*m));
    complete_message(*m);
    out.emplace_hint(out.end(), s.id, std::move(m));
  }
  return out;
}

std::uint32_t queued_messages::add(const message_ptr& m) {
  const auto [it, fresh] = index.try_emplace(m.get(), static_cast<std::uint32_t>(list.size()));
  if (fresh) list.push_back(m);
  return it->second;
}

void gather_queued_messages(const std::vector<queued_messages>& loops,
                            std::vector<std::vector<moved_stream>>& streams,
                            const handover_messages& node, process_handover& out) {
  queued_messages all;
  for (std::size_t i = 0; i < loops.size(); ++i) {
    std::vector<std::uint32_t> renumbered;
    renumbered.reserve(loops[i].list.size());
    for (const message_ptr& m : loops[i].list)
      renumbered.push_back(all.add(m));
    for (moved_stream& s : streams[i])
      for (queued_frame& q : s.queued)
        if (q.message != queued_frame::own) q.message = renumbered[q.message];
  }
  out.messages.reserve(all.list.size());
  for (const message_ptr& m : all.list) {
    const auto in_node = node.find(m->id);
    moved_message& t = out.messages.emplace_back();
    t.id = m->id;
    t.in_node_state = in_node != node.end() && in_node->second == m;
    if (t.in_node_state) continue;
    t.json = m->json;
    t.sse_prefix = m->sse_prefix;
  }
}

std::vector<message_ptr> restore_queued_messages(const std::vector<moved_message>& table,
                                                 const handover_messages& node) {
  std::vector<message_ptr> out;
  out.reserve(table.size());
  for (const moved_message& t : table) {
    if (t.in_node_state) {
      const auto it = node.find(t.id);
      out.push_back(it == node.end() ? nullptr : it->second);
      continue;
    }
    auto m = std::make_shared<message>();
    m->id = t.id;
    m->json = t.json;
    m->sse_prefix = t.sse_prefix;
    m->ws_frame = ws::text_frame(m->json);
    out.push_back(std::move(m));
  }
  return out;
}

std::optional<std::vector<outbound>> queue_of(moved_stream& s,
                                              const std::vector<message_ptr>& table) {
  std::vector<outbound> out;
  out.reserve(s.queued.size() + 1);
  if (!s.partial.empty()) out.push_back({nullptr, std::move(s.partial)});
  for (queued_frame& q : s.queued) {
    if (q.message == queued_frame::own) {
      out.push_back({nullptr, std::move(q.text)});
    } else if (table.at(q.message)) {  // the codec checked every reference
      out.push_back({.msg = table[q.message], .text = {}, .unnumbered = q.unnumbered});
    } else {
      return std::nullopt;
    }
  }
  return out;
}

upgrade::rel_ns relative_to(timing_wheel::time_point t, timing_wheel::time_point now) {
  if (t == timing_wheel::time_point::max()) return upgrade::never;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t - now).count();
}

timing_wheel::time_point absolute_from(upgrade::rel_ns t, timing_wheel::time_point now) {
  using limits = std::numeric_limits<std::int64_t>;
  const std::int64_t base =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  if (t == upgrade::never || (t > 0 && base > limits::max() - t))
    return timing_wheel::time_point::max();
  if (t < 0 && base < limits::min() - t) return timing_wheel::time_point::min();
  return timing_wheel::time_point(
      std::chrono::duration_cast<timing_wheel::duration>(std::chrono::nanoseconds(base + t)));
}

}  // namespace ringcast
