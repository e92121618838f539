#include "protocol/strict_json.hpp"

#include <string>
#include <unordered_set>
#include <vector>

#include <boost/json/basic_parser_impl.hpp>
#include <boost/json/value_stack.hpp>

namespace ringcast {
namespace {

namespace json = boost::json;
using boost::system::error_code;

// Boost.JSON's own value-building handler (a value_stack fed by each event, as boost::json::parse
// does), plus the keys of each open object (their depth is bounded by the parser's max_depth):
// it stops at the first key an object holds twice.
class strict_handler {
 public:
  static constexpr std::size_t max_object_size = json::object::max_size();
  static constexpr std::size_t max_array_size = json::array::max_size();
  static constexpr std::size_t max_key_size = json::string::max_size();
  static constexpr std::size_t max_string_size = json::string::max_size();

  json::value_stack stack;
  std::string duplicate;

  bool on_document_begin(error_code&) { return true; }
  bool on_document_end(error_code&) { return true; }
  bool on_object_begin(error_code&) {
    open_.emplace_back();
    return true;
  }
  bool on_object_end(std::size_t n, error_code&) {
    open_.pop_back();
    stack.push_object(n);
    return true;
  }
  bool on_array_begin(error_code&) { return true; }
  bool on_array_end(std::size_t n, error_code&) {
    stack.push_array(n);
    return true;
  }
  bool on_key_part(json::string_view part, std::size_t, error_code&) {
    key_.append(part);
    stack.push_chars(part);
    return true;
  }
  bool on_key(json::string_view last, std::size_t, error_code& ec) {
    key_.append(last);
    if (!open_.back().insert(key_).second) {
      duplicate = std::move(key_);
      ec = json::error::extra_data;  // any error: it stops the parse
      return false;
    }
    key_.clear();
    stack.push_key(last);
    return true;
  }
  bool on_string_part(json::string_view part, std::size_t, error_code&) {
    stack.push_chars(part);
    return true;
  }
  bool on_string(json::string_view last, std::size_t, error_code&) {
    stack.push_string(last);
    return true;
  }
  bool on_number_part(json::string_view, error_code&) { return true; }
  bool on_int64(std::int64_t i, json::string_view, error_code&) {
    stack.push_int64(i);
    return true;
  }
  bool on_uint64(std::uint64_t u, json::string_view, error_code&) {
    stack.push_uint64(u);
    return true;
  }
  bool on_double(double d, json::string_view, error_code&) {
    stack.push_double(d);
    return true;
  }
  bool on_bool(bool b, error_code&) {
    stack.push_bool(b);
    return true;
  }
  bool on_null(error_code&) {
    stack.push_null();
    return true;
  }
  bool on_comment_part(json::string_view, error_code&) { return true; }
  bool on_comment(json::string_view, error_code&) { return true; }

 private:
  std::vector<std::unordered_set<std::string>>
      open_;  // the keys of each open object, innermost last
  std::string key_;
};

}  // namespace

parsed<json::value> parse_strict_json(std::string_view text) {
  using result = parsed<json::value>;
  json::basic_parser<strict_handler> parser(json::parse_options{});
  parser.handler().stack.reset();
  error_code ec;
  const std::size_t read = parser.write_some(false, text.data(), text.size(), ec);
  if (!parser.handler().duplicate.empty())
    return result::fail("the key \"" + parser.handler().duplicate + "\" is given twice");
  if (ec || read != text.size() || !parser.done()) return result::fail("invalid JSON");
  return result::ok(parser.handler().stack.release());
}

}  // namespace ringcast
