#include "json_duplicate_keys.hpp"

#include <cstdint>
#include <limits>
#include <unordered_set>
#include <vector>

#include <boost/json/basic_parser_impl.hpp>

namespace ringcast {
namespace {

// A basic_parser handler that keeps only the keys of each open object (its depth is bounded by
// the parser's max_depth) and stops at the first one seen twice.
class key_tracker {
 public:
  static constexpr std::size_t max_object_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_array_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_key_size = std::numeric_limits<std::size_t>::max();
  static constexpr std::size_t max_string_size = std::numeric_limits<std::size_t>::max();

  std::optional<std::string> duplicate;

  bool on_document_begin(boost::system::error_code&) { return true; }
  bool on_document_end(boost::system::error_code&) { return true; }
  bool on_array_begin(boost::system::error_code&) { return true; }
  bool on_array_end(std::size_t, boost::system::error_code&) { return true; }
  bool on_object_begin(boost::system::error_code&) {
    open_.emplace_back();
    return true;
  }
  bool on_object_end(std::size_t, boost::system::error_code&) {
    open_.pop_back();
    return true;
  }
  bool on_string_part(std::string_view, std::size_t, boost::system::error_code&) { return true; }
  bool on_string(std::string_view, std::size_t, boost::system::error_code&) { return true; }
  bool on_key_part(std::string_view part, std::size_t, boost::system::error_code&) {
    key_.append(part);
    return true;
  }
  bool on_key(std::string_view last, std::size_t, boost::system::error_code& ec) {
    key_.append(last);
    if (!open_.back().insert(key_).second) {
      duplicate = std::move(key_);
      ec = boost::json::error::extra_data;  // any error: it stops the parse
      return false;
    }
    key_.clear();
    return true;
  }
  bool on_number_part(std::string_view, boost::system::error_code&) { return true; }
  bool on_int64(std::int64_t, std::string_view, boost::system::error_code&) { return true; }
  bool on_uint64(std::uint64_t, std::string_view, boost::system::error_code&) { return true; }
  bool on_double(double, std::string_view, boost::system::error_code&) { return true; }
  bool on_bool(bool, boost::system::error_code&) { return true; }
  bool on_null(boost::system::error_code&) { return true; }
  bool on_comment_part(std::string_view, boost::system::error_code&) { return true; }
  bool on_comment(std::string_view, boost::system::error_code&) { return true; }

 private:
  // The keys of each object being read, innermost last.
  std::vector<std::unordered_set<std::string>> open_;
  std::string key_;
};

}  // namespace

std::optional<std::string> duplicate_json_key(std::string_view json) {
  boost::json::basic_parser<key_tracker> parser(boost::json::parse_options{});
  boost::system::error_code ec;
  parser.write_some(false, json.data(), json.size(), ec);
  return std::move(parser.handler().duplicate);
}

}  // namespace ringcast
