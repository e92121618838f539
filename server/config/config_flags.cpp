#include "config/config_flags.hpp"

#include <sstream>
#include <string>

#include "config/flag_table.hpp"

namespace ringcast {

namespace po = boost::program_options;

namespace {

// --help's layout: the flag and its value in the first column, the description wrapped at word
// boundaries in the second (Boost's own layout splits long words such as URLs across lines).
constexpr std::size_t description_column = 30;
constexpr std::size_t line_width = 80;

// Appends `text` wrapped to the description column, never splitting a word.
void append_description(std::string& out, std::string_view text) {
  std::size_t used = description_column;
  bool line_empty = true;
  std::istringstream words{std::string(text)};
  for (std::string word; words >> word;) {
    if (!line_empty && used + 1 + word.size() > line_width) {
      out += '\n' + std::string(description_column, ' ');
      used = description_column;
      line_empty = true;
    }
    if (!line_empty) {
      out += ' ';
      ++used;
    }
    out += word;
    used += word.size();
    line_empty = false;
  }
  out += '\n';
}

}  // namespace

// One options_description per topic of the flag table, in --help's order.
std::vector<flag_group_description> describe_flag_groups() {
  const config defaults;
  std::vector<flag_group_description> groups;
  for (const auto& group : flag_table()) {
    po::options_description flags;
    for (const flag& f : group.flags) {
      std::string names(f.name);
      if (f.short_name) names += std::string(",") + f.short_name;
      const std::string help(f.help);
      if (f.value_name.empty()) {  // a switch: program_options' untyped value takes no token
        flags.add_options()(names.c_str(), help.c_str());
        continue;
      }
      auto* value = po::value<std::string>()->value_name(std::string(f.value_name));
      if (f.has_default) value->default_value(f.value(defaults));
      flags.add_options()(names.c_str(), value, help.c_str());
    }
    groups.push_back({std::string(group.topic), std::move(flags)});
  }
  return groups;
}

po::options_description describe_flags() {
  po::options_description flags("Flags");
  for (const auto& group : describe_flag_groups())
    flags.add(group.flags);
  return flags;
}

std::string help_text() {
  std::string out;
  for (const auto& group : describe_flag_groups()) {
    out += group.topic + ":\n";
    for (const auto& option : group.flags.options()) {
      std::string head = "  " + option->format_name();
      if (const auto parameter = option->format_parameter(); !parameter.empty())
        head += " " + parameter;
      out += head;
      if (head.size() + 1 < description_column) {
        out += std::string(description_column - head.size(), ' ');
      } else {
        out += '\n' + std::string(description_column, ' ');
      }
      append_description(out, option->description());
    }
    out += '\n';
  }
  return out;
}

}  // namespace ringcast
