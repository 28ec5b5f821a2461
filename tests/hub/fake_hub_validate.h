// Validation of the fake Hub's inputs: ids, paths and the token end up inside nginx.conf, so anything nginx
// would interpret is refused (std::invalid_argument).
#pragma once

#include <filesystem>
#include <string>

namespace ma::test::detail {

void validate_repo_id(const std::string& id);
void validate_file_path(const std::string& path);
void validate_token(const std::string& token);
void validate_header(const std::string& name, const std::string& value);
void validate_config_path(const std::filesystem::path& p);

}  // namespace ma::test::detail
