#include "watch_table.h"

#include "zksim/path.h"

#include <algorithm>

namespace zksim::detail {

void WatchManager::add(std::string_view path, SessionId session, WatchMode mode) {
  auto it = table_.find(path);
  if (it == table_.end()) it = table_.emplace(std::string(path), std::vector<Entry>{}).first;
  for (Entry& e : it->second) {
    if (e.session == session) {
      recursive_ -= e.mode == WatchMode::PersistentRecursive;
      recursive_ += mode == WatchMode::PersistentRecursive;
      e.mode = mode;
      return;
    }
  }
  it->second.push_back(Entry{session, mode});
  by_session_[session].emplace(path);
  ++count_;
  recursive_ += mode == WatchMode::PersistentRecursive;
}

std::vector<SessionId> WatchManager::trigger(std::string_view path, EventType type,
                                             const std::vector<SessionId>& suppress,
                                             std::vector<SessionId>& notify) {
  std::vector<SessionId> found;
  if (table_.empty()) return found;
  std::string_view local = path;
  bool at_parent = false;
  while (true) {
    auto it = table_.find(local);
    if (it != table_.end()) {
      auto& entries = it->second;
      for (std::size_t i = 0; i < entries.size();) {
        Entry e = entries[i];
        bool keep = true;
        if (e.mode == WatchMode::PersistentRecursive) {
          if (type != EventType::NodeChildrenChanged) found.push_back(e.session);
        } else if (!at_parent) {
          found.push_back(e.session);
          if (e.mode == WatchMode::Standard) keep = false;
        }
        if (keep) {
          ++i;
          continue;
        }
        entries.erase(entries.begin() + static_cast<std::ptrdiff_t>(i));
        --count_;
        auto s = by_session_.find(e.session);
        s->second.erase(s->second.find(local));
        if (s->second.empty()) by_session_.erase(s);
      }
      if (entries.empty()) table_.erase(it);
    }
    // Ancestors matter only to recursive watches (PathParentIterator).
    if (recursive_ == 0 || local.size() == 1) break;
    local = parent_of(local);
    at_parent = true;
  }
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  for (SessionId s : found) {
    if (!std::binary_search(suppress.begin(), suppress.end(), s)) notify.push_back(s);
  }
  return found;
}

bool WatchManager::remove(std::string_view path, SessionId session) {
  auto it = table_.find(path);
  if (it == table_.end()) return false;
  auto& entries = it->second;
  auto e = std::find_if(entries.begin(), entries.end(),
                        [&](const Entry& x) { return x.session == session; });
  if (e == entries.end()) return false;
  recursive_ -= e->mode == WatchMode::PersistentRecursive;
  entries.erase(e);
  --count_;
  if (entries.empty()) table_.erase(it);
  auto s = by_session_.find(session);
  s->second.erase(s->second.find(path));
  if (s->second.empty()) by_session_.erase(s);
  return true;
}

void WatchManager::remove_session(SessionId session) {
  auto s = by_session_.find(session);
  if (s == by_session_.end()) return;
  for (const std::string& path : s->second) {
    auto it = table_.find(path);
    auto& entries = it->second;
    auto e = std::find_if(entries.begin(), entries.end(),
                          [&](const Entry& x) { return x.session == session; });
    recursive_ -= e->mode == WatchMode::PersistentRecursive;
    entries.erase(e);
    --count_;
    if (entries.empty()) table_.erase(it);
  }
  by_session_.erase(s);
}

std::vector<std::pair<std::string, WatchMode>> WatchManager::of_session(SessionId session) const {
  std::vector<std::pair<std::string, WatchMode>> out;
  auto s = by_session_.find(session);
  if (s == by_session_.end()) return out;
  for (const std::string& path : s->second) {
    for (const Entry& e : table_.at(path)) {
      if (e.session == session) out.emplace_back(path, e.mode);
    }
  }
  return out;
}

}  // namespace zksim::detail
