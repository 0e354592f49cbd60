#include "common.h"

#include "args.h"
#include "zksim/scenarios/workload.h"
#include "zksim/zk_trace.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

namespace zksim::cli {

namespace {
std::string& name_storage() {
  static std::string name = "zksim";
  return name;
}

std::string shell_quote(const std::string& s) {
  bool plain = !s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,+@") == std::string::npos;
  if (plain) return s;
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

void set_program_name(std::string argv0) { name_storage() = std::move(argv0); }
const std::string& program_name() { return name_storage(); }

std::string program_command() { return shell_quote(program_name()); }

std::string replay_command(const std::string& file) {
  return fmt::format("{} replay {}", shell_quote(program_name()), shell_quote(file));
}

void print_json(const nlohmann::json& j) {
  std::fputs(j.dump(2).c_str(), stdout);
  std::fputc('\n', stdout);
}

std::vector<std::string> fault_class_names() {
  std::vector<std::string> out;
  for (int k = 0; k < kFaultClasses; ++k) out.emplace_back(fault_class_name(k));
  return out;
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (true) {
    std::size_t comma = list.find(',', start);
    out.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

scenarios::ClientChoice parse_clients(const std::string& what, const std::string& option) {
  scenarios::ClientChoice choice;
  std::size_t bad = 0;
  if (std::string why = scenarios::parse_client_choice({option}, choice, &bad); !why.empty()) {
    throw UsageError(fmt::format("{}: {}", what, why));
  }
  return choice;
}

std::vector<int> parse_fault_classes(const std::string& what, const std::string& list) {
  std::vector<int> out;
  for (const std::string& name : split(list)) {
    if (name == "none" && list != "none") {
      throw UsageError(fmt::format("{}: 'none' stands alone, not in a list of fault classes ('{}')", what, list));
    }
    int kind = name == "none" ? kFaultClasses : -1;  // "none" adds nothing
    for (int k = 0; k < kFaultClasses; ++k) {
      if (fault_class_name(k) == name) kind = k;
    }
    if (kind < 0) {
      throw UsageError(fmt::format("{}: unknown fault class '{}' (known: none, {})", what, name,
                                   fmt::join(fault_class_names(), ", ")));
    }
    if (std::find(out.begin(), out.end(), kind) != out.end()) {
      throw UsageError(fmt::format("{}: '{}' given twice ('{}')", what, name, list));
    }
    if (kind < kFaultClasses) out.push_back(kind);
  }
  return out;
}


void check_output_dir(const std::string& what, const std::string& dir) {
  namespace fs = std::filesystem;
  if (dir.empty()) throw UsageError(fmt::format("{}: empty path (give a directory)", what));
  fs::path existing(dir);
  std::error_code ec;
  while (!fs::exists(existing, ec)) {
    if (!existing.has_parent_path()) {
      existing = ".";  // a relative path: made in the working directory
      break;
    }
    existing = existing.parent_path();
  }
  if (!fs::is_directory(existing, ec)) throw UsageError(fmt::format("{}: not a directory: {}", what, existing.string()));
  std::string probe = (existing / ".zksim-write-check-XXXXXX").string();
  const int fd = mkstemp(probe.data());
  if (fd < 0) throw UsageError(fmt::format("{}: cannot write in {}: {}", what, existing.string(), std::strerror(errno)));
  close(fd);
  unlink(probe.c_str());
}

void check_output_file(const std::string& what, const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty()) throw UsageError(fmt::format("{}: empty path (give a file)", what));
  auto refuse = [&](const std::string& why) {
    throw UsageError(fmt::format("{}: cannot write {}: {}", what, path, why));
  };
  std::error_code ec;
  if (fs::is_directory(path, ec)) refuse("it is a directory");
  const fs::path parent = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) refuse(fmt::format("no directory {}", parent.string()));
  if (fs::exists(path, ec)) {
    // Opened for writing without truncating: the file stays as it is.
    const int fd = open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) refuse(std::strerror(errno));
    close(fd);
    return;
  }
  std::string probe = (parent / ".zksim-write-check-XXXXXX").string();
  const int fd = mkstemp(probe.data());
  if (fd < 0) refuse(std::strerror(errno));
  close(fd);
  unlink(probe.c_str());
}

void write_output_file(const std::string& what, const std::string& path, const std::string& text) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw UsageError(fmt::format("{}: cannot write {}: {}", what, path, std::strerror(errno)));
  const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  const int write_errno = errno;
  if (std::fclose(f) != 0 || !written) {
    throw UsageError(fmt::format("{}: cannot write {}: {}", what, path, std::strerror(written ? errno : write_errno)));
  }
}

bool stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

}  // namespace zksim::cli
