#include "sse_parser.hpp"

namespace ringcast::load {

void sse_parser::feed(std::string_view bytes) {
  while (!bytes.empty()) {
    const auto nl = bytes.find('\n');
    if (nl == std::string_view::npos) {
      pending_.append(bytes);
      return;
    }
    pending_.append(bytes.substr(0, nl));
    bytes.remove_prefix(nl + 1);
    if (!pending_.empty() && pending_.back() == '\r') pending_.pop_back();
    line(pending_);
    pending_.clear();
  }
}

void sse_parser::line(std::string_view text) {
  if (text.empty()) {
    if (!data_.empty()) on_event_(event_.empty() ? "message" : event_, data_);
    event_.clear();
    data_.clear();
    return;
  }
  if (text.front() == ':') {
    ++comments_;
    return;
  }
  const auto colon = text.find(':');
  const auto field = text.substr(0, colon);
  auto value = colon == std::string_view::npos ? std::string_view{} : text.substr(colon + 1);
  if (value.starts_with(' ')) value.remove_prefix(1);
  if (field == "event") {
    event_ = value;
  } else if (field == "data") {
    if (!data_.empty()) data_ += '\n';
    data_ += value;
  }
  // id and retry need no handling: the envelope carries the id and retry_ms itself.
}

}  // namespace ringcast::load
