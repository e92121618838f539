#include "protocol/message_label.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

namespace ringcast {
namespace {

// The first `limit` code points of UTF-8 `text` (Boost.JSON gives valid UTF-8), "…" marking a cut.
std::string first_chars(std::string_view text, std::size_t limit) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool starts_a_char = (static_cast<unsigned char>(text[i]) & 0xC0U) != 0x80U;
    if (starts_a_char && chars++ == limit) return std::string(text.substr(0, i)) + "…";
  }
  return std::string(text);
}

}  // namespace

std::string message_label(std::string_view envelope_json) {
  boost::system::error_code ec;
  const boost::json::value envelope = boost::json::parse(envelope_json, ec);
  const auto* object = ec ? nullptr : envelope.if_object();
  const auto* data = object ? object->if_contains("data") : nullptr;
  if (!data) return {};
  if (const auto* fields = data->if_object()) {
    if (const auto* title = fields->if_contains("title"); title && title->is_string())
      return first_chars(title->get_string(), message_label_chars);
  }
  return first_chars(boost::json::serialize(*data), message_label_chars);
}

}  // namespace ringcast
