#pragma once

#include <functional>
#include <string>
#include <string_view>

namespace ringcast::load {

// Splits a text/event-stream body into events (WHATWG "server-sent events" parsing, reduced to
// what ringcast sends: event, data, id, retry and comment lines). Feed it bytes as they arrive,
// in any chunking; `on_event(name, data)` runs once per blank-line-terminated event.
class sse_parser {
 public:
  using handler = std::function<void(std::string_view event, std::string_view data)>;
  explicit sse_parser(handler on_event) : on_event_(std::move(on_event)) {}

  void feed(std::string_view bytes);
  std::uint64_t comments() const { return comments_; }

 private:
  void line(std::string_view text);

  handler on_event_;
  std::string pending_;  // a line not yet terminated
  std::string event_;
  std::string data_;
  std::uint64_t comments_ = 0;
};

}  // namespace ringcast::load
