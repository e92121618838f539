#include "core/schedule.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace ringcast {

schedule::schedule(std::size_t limit, loop_timers& timers, publish_fn publish)
    : limit_(limit), timers_(timers), publish_(std::move(publish)) {}

schedule::~schedule() {
  for (std::uint32_t slot = 0; slot < slots_used_; ++slot) {
    timers_.disarm(at(slot));  // entries keep the bare node: the schedule disarms them
  }
}

// "<generation>-<slot>" in hex: short, and never the same for two promotions of one run.
std::string schedule::id_of(std::uint32_t slot, std::uint32_t generation) {
  return fmt::format("{:x}-{:x}", generation, slot);
}

std::optional<std::string> schedule::add(std::int64_t at_ms, time_point due,
                                         std::string request_json) {
  if (size_ >= limit_) return std::nullopt;
  std::uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = slots_used_++;
    if (slot % chunk_size == 0) chunks_.push_back(std::make_unique<entry[]>(chunk_size));
  }
  entry& e = at(slot);
  e.owner_ = this;
  e.tag = slot;
  e.at_ms = at_ms;
  e.request_json = std::move(request_json);
  ++size_;
  timers_.arm(e, due);
  return id_of(slot, e.generation);
}

schedule::entry* schedule::find(std::string_view id) {
  const auto dash = id.find('-');
  if (dash == std::string_view::npos) return nullptr;
  std::uint32_t generation = 0, slot = 0;
  const auto parse = [](std::string_view text, std::uint32_t& out) {
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out, 16);
    return ec == std::errc{} && end == text.data() + text.size() && !text.empty();
  };
  if (!parse(id.substr(0, dash), generation) || !parse(id.substr(dash + 1), slot)) return nullptr;
  if (slot >= slots_used_) return nullptr;
  entry& e = at(slot);
  // Also refuses a non-canonical spelling (leading zeros) of a live id: ids are compared as issued.
  if (!e.armed() || e.generation != generation || id_of(slot, generation) != id) return nullptr;
  return &e;
}

bool schedule::cancel(std::string_view id) {
  entry* e = find(id);
  if (!e) return false;
  timers_.disarm(*e);
  release(*e);
  return true;
}

void schedule::release(entry& e) {
  e.request_json = std::string{};  // gives the text's memory back
  ++e.generation;
  free_.push_back(e.tag);
  --size_;
}

void schedule::entry::on_timer(time_point now) {
  owner_->fire(*this, now);
}

void schedule::fire(entry& e, time_point now) {
  if (const auto left = std::chrono::milliseconds(e.at_ms - timers_.unix_ms()); left.count() > 0) {
    timers_.arm(e, now + left);  // the wall clock was set back while it waited
    return;
  }
  std::string request = std::move(e.request_json);
  release(e);
  publish_(request);
}

std::vector<schedule::waiting_view> schedule::list() const {
  std::vector<const entry*> waiting;
  waiting.reserve(size_);
  for (std::uint32_t slot = 0; slot < slots_used_; ++slot) {
    if (at(slot).armed()) waiting.push_back(&at(slot));
  }
  // Slots are reused, so the order of addition is not the slot order: `at` is the order asked for.
  std::stable_sort(waiting.begin(), waiting.end(),
                   [](const entry* a, const entry* b) { return a->at_ms < b->at_ms; });
  std::vector<waiting_view> out;
  out.reserve(waiting.size());
  for (const entry* e : waiting)
    out.push_back({id_of(e->tag, e->generation), e->at_ms, e->request_json});
  return out;
}

}  // namespace ringcast
