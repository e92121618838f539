#include "config/config_reload.hpp"

#include <sstream>

#include <fmt/format.h>

#include "config/flag_table.hpp"
#include "config/parse_config.hpp"

namespace ringcast {

std::vector<std::string> settings_changed(const config& a, const config& b) {
  std::vector<std::string> changed;
  for (const auto& group : flag_table())
    for (const flag& f : group.flags)
      if (f.value && f.value(a) != f.value(b)) changed.emplace_back(f.name);
  return changed;
}

std::vector<std::string_view> live_settings() {
  std::vector<std::string_view> live;
  for (const auto& group : flag_table())
    for (const flag& f : group.flags)
      if (f.apply_live) live.push_back(f.name);
  return live;
}

config with_live_settings(const config& running, const config& fresh) {
  config next = running;
  for (const auto& group : flag_table())
    for (const flag& f : group.flags)
      if (f.apply_live) f.apply_live(next, fresh);
  return next;
}

reload_report check_reload(const config& running, int argc, const char* const* argv,
                           const std::function<const char*(const char*)>& getenv) {
  std::ostringstream out, err;
  auto fresh = parse_config(argc, argv, out, err, getenv);
  reload_report report;
  if (!fresh.cfg) {
    std::string why = err.str();
    while (!why.empty() && why.back() == '\n')
      why.pop_back();
    if (why.starts_with("ringcast: ")) why.erase(0, 10);
    report.lines.push_back(fmt::format("SIGHUP: {}; the running settings stay", why));
    return report;
  }
  report.ok = true;
  const auto changed = settings_changed(running, *fresh.cfg);
  if (changed.empty()) {
    report.lines.emplace_back("SIGHUP: settings read again: nothing changed");
    return report;
  }
  for (const auto& name : changed) {
    if (find_flag(name)->apply_live) {
      report.lines.push_back(fmt::format("SIGHUP: '{}' changed: applied", name));
      report.apply = with_live_settings(running, *fresh.cfg);
    } else {
      report.lines.push_back(fmt::format(
          "SIGHUP: '{}' changed but cannot change while running; it takes effect at the next "
          "restart",
          name));
    }
  }
  return report;
}

}  // namespace ringcast
