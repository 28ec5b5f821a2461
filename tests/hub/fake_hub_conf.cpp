// The fake Hub's whole nginx.conf, with the CDN server block (the hub server block is fake_hub_conf_hub.cpp).
#include "fake_hub_conf.h"

#include <unistd.h>

#include <set>

#include "fake_hub_conf_hub.h"
#include "fake_hub_conf_text.h"

namespace ma::test::detail {

namespace {

std::vector<std::string> cdn_mode_statements(Mode m) {
  if (m == Mode::IgnoreRange) return {"max_ranges 0;"};
  if (m == Mode::Slow) return {"limit_rate 256k;"};
  return {};
}

std::string cdn_server(const Layout& lay, const std::vector<RepoPlan>& repos, uint16_t port) {
  std::string locations;
  std::set<std::string> served;  // identical blobs of normal repos share one URL
  for (const RepoPlan& r : repos)
    for (const FilePlan& f : r.files) {
      if (!f.file.lfs || !served.insert(cdn_uri(r, f)).second) continue;
      std::vector<std::string> st = cdn_mode_statements(r.mode);
      st.push_back(add_header("ETag", quoted_etag(f.etag)));
      st.push_back("alias " + nginx_quote(lay.blob(r, f).string()) + ";");
      locations += location(exact(cdn_uri(r, f)), st);
    }
  return "  server {\n    listen 127.0.0.1:" + std::to_string(port) + ";\n    server_name cdn;\n    root " +
         nginx_quote(lay.empty_root().string()) + ";\n    etag off;\n    access_log " +
         nginx_quote(lay.cdn_log().string()) + " ma_cdn;\n" + locations + location("/", {"return 404;"}) +
         "  }\n";
}

std::string log_format(const std::string& name, const std::string& server) {
  return "  log_format " + name + " escape=default \"" + server +
         "\\t$request_method\\t$request_uri\\t$status\\t$http_range\\t$http_authorization\\t$bytes_sent\";\n";
}

std::string temp_paths(const Layout& lay) {
  std::string s;
  for (const char* kind : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"})
    s += std::string("  ") + kind + "_temp_path " + nginx_quote((lay.tmp() / kind).string()) + ";\n";
  return s;
}

// $ma_auth: none / valid / invalid. A regex, because map's plain strings compare case-insensitively.
std::string auth_map(const std::string& token) {
  return "  map $http_authorization $ma_auth {\n    \"\" none;\n    " +
         nginx_quote("~^Bearer \\Q" + token + "\\E$") + " valid;\n    default invalid;\n  }\n";
}

std::string limit_zones(const std::vector<RepoPlan>& repos) {
  std::string s;
  for (const RepoPlan& r : repos)
    if (is_limited(r.mode))
      s += "  limit_req_zone $binary_remote_addr zone=ma_limit_" + std::to_string(r.index) +
           ":1m rate=30r/m;\n";
  return s;
}

std::string main_section(const Layout& lay) {
  std::string s = "daemon off;\nmaster_process on;\nworker_processes 1;\n";
  // As root, workers would otherwise run as nobody and could not read a 0700 temp dir.
  if (::geteuid() == 0) s += "user root;\n";
  // Graceful stop closes even active (slow) transfers after 1 s rather than waiting for them.
  s += "worker_shutdown_timeout 1s;\n";
  s += "pid " + nginx_quote(lay.pid_file().string()) + ";\n";
  s += "error_log " + nginx_quote(lay.error_log().string()) + " notice;\n";
  return s + "events {\n  worker_connections 1024;\n}\n";
}

std::string http_common(const Layout& lay) {
  return "  types {}\n  default_type application/octet-stream;\n  server_tokens off;\n  sendfile on;\n"
         "  tcp_nopush on;\n  tcp_nodelay on;\n  keepalive_timeout 60s;\n  keepalive_requests 100000;\n"
         // Like the Hub's CDN, JSON goes out gzip-compressed to clients that accept it (never a range
         // answer).
         "  gzip on;\n  gzip_types application/json;\n  gzip_min_length 1024;\n" +
         temp_paths(lay) + log_format("ma_hub", "hub") + log_format("ma_cdn", "cdn") + "  access_log off;\n";
}

}  // namespace

std::string origin(uint16_t port) {
  return "http://127.0.0.1:" + std::to_string(port);
}

std::string render_config(const ConfigInputs& in) {
  return main_section(in.lay) + "http {\n" + http_common(in.lay) + auth_map(in.token) +
         limit_zones(in.repos) +
         hub_server(in.lay, in.repos, in.hub_port, origin(in.hub_port), origin(in.cdn_port)) +
         cdn_server(in.lay, in.repos, in.cdn_port) + "}\n";
}

}  // namespace ma::test::detail
