#include "watch_table.h"

#include "zksim/path.h"

#include <algorithm>

namespace zksim::detail {

void WatchManager::add(std::string_view path, SessionId session, WatchMode mode) {
  auto it = reuse_.find_or_add(table_, path);
  for (Entry& e : it->second) {
    if (e.session == session) {
      recursive_ -= e.mode == WatchMode::PersistentRecursive;
      recursive_ += mode == WatchMode::PersistentRecursive;
      e.mode = mode;
      return;
    }
  }
  std::vector<const std::string*>& paths = by_session_[session];
  it->second.push_back(Entry{session, mode, static_cast<std::uint32_t>(paths.size())});
  paths.push_back(&it->first);
  ++count_;
  recursive_ += mode == WatchMode::PersistentRecursive;
}

void WatchManager::drop(Table::iterator it, std::vector<Entry>::iterator e) {
  const SessionId session = e->session;
  const std::uint32_t at = e->at;
  recursive_ -= e->mode == WatchMode::PersistentRecursive;
  it->second.erase(e);
  --count_;
  // Swap-remove from the session's list; the path moved into the hole
  // learns its new index.
  std::vector<const std::string*>& paths = by_session_.find(session)->second;
  if (at + 1 != paths.size()) {
    paths[at] = paths.back();
    for (Entry& moved : table_.find(*paths[at])->second) {
      if (moved.session == session) moved.at = at;
    }
  }
  paths.pop_back();
  if (it->second.empty()) reuse_.erase(table_, it);
}

void WatchManager::trigger(std::string_view path, EventType type, const std::vector<SessionId>& suppress,
                           std::vector<SessionId>& notify, std::vector<SessionId>* processed) {
  std::vector<SessionId>& found = found_;
  found.clear();
  if (table_.empty()) {
    if (processed) processed->clear();
    return;
  }
  std::string_view local = path;
  bool at_parent = false;
  while (true) {
    auto it = table_.find(local);
    if (it != table_.end()) {
      auto& entries = it->second;
      bool one_shot = false;
      for (const Entry& e : entries) {
        if (e.mode == WatchMode::PersistentRecursive) {
          if (type != EventType::NodeChildrenChanged) found.push_back(e.session);
        } else if (!at_parent) {
          found.push_back(e.session);
          one_shot |= e.mode == WatchMode::Standard;
        }
      }
      // Fired standard watches go, from the back; the path's node goes
      // with its last entry.
      for (std::size_t i = entries.size(); one_shot && i-- > 0;) {
        if (entries[i].mode != WatchMode::Standard) continue;
        const bool last = entries.size() == 1;
        drop(it, entries.begin() + static_cast<std::ptrdiff_t>(i));
        if (last) break;
      }
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
  if (processed) *processed = found;
}

bool WatchManager::remove(std::string_view path, SessionId session) {
  auto it = table_.find(path);
  if (it == table_.end()) return false;
  auto& entries = it->second;
  auto e = std::find_if(entries.begin(), entries.end(),
                        [&](const Entry& x) { return x.session == session; });
  if (e == entries.end()) return false;
  drop(it, e);
  return true;
}

void WatchManager::remove_session(SessionId session) {
  auto s = by_session_.find(session);
  if (s == by_session_.end()) return;
  // From the back, so each drop is a plain pop of the session's list.
  while (!s->second.empty()) {
    auto it = table_.find(*s->second.back());
    auto& entries = it->second;
    drop(it, std::find_if(entries.begin(), entries.end(),
                          [&](const Entry& x) { return x.session == session; }));
  }
  by_session_.erase(s);
}

std::vector<std::pair<std::string, WatchMode>> WatchManager::of_session(SessionId session) const {
  std::vector<std::pair<std::string, WatchMode>> out;
  auto s = by_session_.find(session);
  if (s == by_session_.end()) return out;
  for (const std::string* path : s->second) {
    for (const Entry& e : table_.find(*path)->second) {
      if (e.session == session) out.emplace_back(*path, e.mode);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace zksim::detail
