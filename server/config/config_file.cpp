#include "config/config_file.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

namespace ringcast {
namespace {

std::string_view trim(std::string_view s) {
  constexpr std::string_view space = " \t\r";
  const auto first = s.find_first_not_of(space);
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(space) - first + 1);
}

// Reads the whole file, up to `limit` bytes (so that /dev/zero or a wrong path to a large file
// is an error, not all of memory); the error says why it could not ("No such file or directory").
parsed<std::string> slurp(const std::string& path, std::size_t limit) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return parsed<std::string>::fail(fmt::format("{}: {}", path, std::strerror(errno)));
  std::string text(limit + 1, '\0');
  file.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (file.bad()) return parsed<std::string>::fail(fmt::format("{}: cannot read it", path));
  text.resize(static_cast<std::size_t>(file.gcount()));
  if (text.size() > limit)
    return parsed<std::string>::fail(fmt::format("{}: larger than {} bytes", path, limit));
  return parsed<std::string>::ok(std::move(text));
}

constexpr std::size_t config_limit = 1 << 20;
constexpr std::size_t secret_limit = 64 << 10;

}  // namespace

parsed<std::vector<config_file_entry>> parse_config_text(
    std::string_view text, const std::string& path,
    const std::function<setting_kind(std::string_view)>& kind_of) {
  using result = parsed<std::vector<config_file_entry>>;
  std::vector<config_file_entry> entries;
  std::map<std::string, unsigned, std::less<>> seen;  // name -> line
  unsigned number = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    ++number;
    auto end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    auto fail = [&](std::string why) {
      return result::fail(fmt::format("{}:{}: {}", path, number, why));
    };

    if (const auto hash = line.find('#'); hash != std::string_view::npos)
      line = line.substr(0, hash);
    line = trim(line);
    if (line.empty()) continue;
    if (line.front() == '[')
      return fail(fmt::format("sections are not used; expected name = value, got '{}'", line));
    const auto equals = line.find('=');
    if (equals == std::string_view::npos)
      return fail(fmt::format("expected name = value, got '{}'", line));
    const std::string_view name = trim(line.substr(0, equals));
    const std::string_view value = trim(line.substr(equals + 1));
    if (name.empty()) return fail(fmt::format("expected name = value, got '{}'", line));
    if (name.starts_with("--"))
      return fail(fmt::format("write '{}' without the dashes", name.substr(2)));

    const setting_kind kind = kind_of(name);
    switch (kind) {
      case setting_kind::unknown:
        return fail(fmt::format("unknown setting '{}'", name));
      case setting_kind::not_allowed:
        return fail(fmt::format("'{}' is a command-line flag only", name));
      case setting_kind::value:
        if (value.empty()) return fail(fmt::format("{}: expected a value", name));
        break;
      case setting_kind::switch_:
        if (value != "true" && value != "false")
          return fail(fmt::format("{}: expected true or false, got '{}'", name, value));
        break;
    }
    if (const auto previous = seen.find(name); previous != seen.end())
      return fail(fmt::format("'{}' is already set on line {}", name, previous->second));
    seen.emplace(std::string(name), number);
    if (kind == setting_kind::switch_ && value == "false") continue;
    entries.push_back({std::string(name),
                       kind == setting_kind::switch_ ? std::string{} : std::string(value), number});
  }
  // An empty file is most likely a mistake (truncated, the wrong path, a template not filled in):
  // refused, here and in --check-config, rather than starting on every default without a word.
  if (seen.empty())
    return result::fail(
        fmt::format("{}: sets nothing (no 'name = value' line); write the settings in it, or leave "
                    "out --config",
                    path));
  return result::ok(std::move(entries));
}

parsed<std::vector<config_file_entry>> read_config_file(
    const std::string& path, const std::function<setting_kind(std::string_view)>& kind_of) {
  auto text = slurp(path, config_limit);
  if (!text) return parsed<std::vector<config_file_entry>>::fail(text.error);
  return parse_config_text(*text.value, path, kind_of);
}

parsed<std::string> read_secret_file(const std::string& path) {
  auto text = slurp(path, secret_limit);
  if (!text) return text;
  std::string secret = std::move(*text.value);
  while (!secret.empty() && (secret.back() == '\n' || secret.back() == '\r'))
    secret.pop_back();
  if (secret.empty()) return parsed<std::string>::fail(fmt::format("{}: the file is empty", path));
  if (secret.find('\n') != std::string::npos)
    return parsed<std::string>::fail(fmt::format("{}: expected one line", path));
  return parsed<std::string>::ok(std::move(secret));
}

}  // namespace ringcast
