#pragma once
// The web pages (storefront, admin page, client library): embedded in the binary at build time
// by cmake/embed_web.cmake (target `ringcast_web`), or read from disk under --web-root. The API's
// OpenAPI document (docs/openapi.yaml) is embedded with them, and always served embedded.
//
// URL path -> file of web/:  "/" -> index.html,  "/admin" -> admin.html,  "/<name>" -> <name>.
// Only plain file names are mapped (letters, digits, '.', '_', '-', no leading dot), so no path
// can reach outside web/. A query string is ignored.

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace ringcast {

struct web_asset {
  std::string_view body;
  std::string_view content_type;
};

struct web_file {
  std::string body;
  std::string_view content_type;
};

namespace web_detail {

struct embedded_file {
  const char* name;
  const unsigned char* data;
  std::size_t size;
};

// Defined in the source that cmake/embed_web.cmake generates; one entry per file of web/.
extern const std::span<const embedded_file> embedded_files;

// The file of web/ that serves `path`, or "" if none can.
inline std::string_view file_for_path(std::string_view path) {
  path = path.substr(0, path.find('?'));
  if (path == "/") return "index.html";
  if (path == "/admin") return "admin.html";
  if (path.size() < 2 || path[0] != '/' || path[1] == '.') return {};
  std::string_view name = path.substr(1);
  for (char c : name) {
    bool plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
    if (!plain) return {};
  }
  return name;
}

inline std::string_view content_type_for(std::string_view name) {
  auto ends_with = [name](std::string_view ext) { return name.ends_with(ext); };
  if (ends_with(".html")) return "text/html; charset=utf-8";
  if (ends_with(".js") || ends_with(".mjs")) return "text/javascript; charset=utf-8";
  if (ends_with(".css")) return "text/css; charset=utf-8";
  if (ends_with(".json")) return "application/json";
  if (ends_with(".svg")) return "image/svg+xml";
  if (ends_with(".png")) return "image/png";
  if (ends_with(".ico")) return "image/x-icon";
  if (ends_with(".txt") || ends_with(".md")) return "text/plain; charset=utf-8";
  if (ends_with(".yaml")) return "application/yaml";  // RFC 9512
  return "application/octet-stream";
}

}  // namespace web_detail

// The embedded page for `path`, or nullopt if there is none. The body lives as long as the program.
inline std::optional<web_asset> find_embedded_asset(std::string_view path) {
  std::string_view name = web_detail::file_for_path(path);
  if (name.empty()) return std::nullopt;
  for (const auto& file : web_detail::embedded_files) {
    if (name == file.name) {
      return web_asset{{reinterpret_cast<const char*>(file.data), file.size},
                       web_detail::content_type_for(name)};
    }
  }
  return std::nullopt;
}

// The same mapping, read from disk under `root` on every call (for --web-root during development:
// edit a file, reload the page). nullopt if the path maps to no readable regular file.
inline std::optional<web_file> read_asset_from(const std::filesystem::path& root,
                                               std::string_view path) {
  std::string_view name = web_detail::file_for_path(path);
  if (name.empty()) return std::nullopt;
  std::filesystem::path file = root / name;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::string body{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  return web_file{std::move(body), web_detail::content_type_for(name)};
}

}  // namespace ringcast
