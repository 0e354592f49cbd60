#include "data_tree.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <new>

namespace zksim::detail {

std::uint64_t hash_bytes(std::string_view s) noexcept {
  constexpr std::uint64_t kGolden = 0x9E3779B97F4A7C15ull;
  constexpr std::uint64_t kMul = 0xBF58476D1CE4E5B9ull;
  std::uint64_t h = (s.size() + 1) * kGolden;
  const char* p = s.data();
  std::size_t n = s.size();
  for (; n >= 8; p += 8, n -= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  }
  if (n != 0) {
    std::uint64_t w = 0;
    std::memcpy(&w, p, n);
    h = (h ^ w) * kMul;
    h ^= h >> 29;
  }
  h *= kGolden;
  return h ^ (h >> 32);
}

void SmallString::assign(std::string_view s) {
  if (s.size() <= kInline) {
    // `s` may lie in this string's own bytes: copy before freeing.
    char* old = size_ > kInline ? heap() : nullptr;
    if (!s.empty()) std::memmove(buf_, s.data(), s.size());
    delete[] old;
  } else {
    char* p = new char[s.size()];
    std::memcpy(p, s.data(), s.size());
    release();
    std::memcpy(buf_, &p, sizeof p);
  }
  size_ = static_cast<std::uint32_t>(s.size());
}

ChildIds::ChildIds(const ChildIds& o) : size_(o.size_), capacity_(o.size_) {
  if (size_ != 0) {
    ids_ = new NodeId[size_];
    std::copy(o.begin(), o.end(), ids_);
  }
}

void ChildIds::push_back(NodeId id) {
  if (size_ == capacity_) {
    std::uint32_t capacity = capacity_ == 0 ? 4 : 2 * capacity_;
    auto* ids = new NodeId[capacity];
    std::copy(begin(), end(), ids);
    delete[] ids_;
    ids_ = ids;
    capacity_ = capacity;
  }
  ids_[size_++] = id;
}

DataTree::DataTree() : index_(16) {
  // "/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config": made without
  // transactions, so every Stat field starts at 0 (DataTree's constructor).
  NodeId root = insert("/", kNoNode, Node{});
  NodeId zk = insert("/zookeeper", root, Node{});
  insert("/zookeeper/quota", zk, Node{});
  insert("/zookeeper/config", zk, Node{});
}

DataTree::~DataTree() {
  for (NodeId id = 0; id < allocated_; ++id) at(id).~Node();
}

// True when the names from `id` up to the root spell `path` exactly.
bool DataTree::has_path(NodeId id, std::string_view path) const noexcept {
  while (true) {
    const Node& n = at(id);
    if (n.parent == kNoNode) return path == "/";
    std::string_view name = n.name.view();
    if (path.size() <= name.size()) return false;
    // Names are short: a byte loop beats a call to memcmp.
    const char* tail = path.data() + (path.size() - name.size());
    for (std::size_t i = 0; i < name.size(); ++i) {
      if (tail[i] != name[i]) return false;
    }
    path.remove_suffix(name.size());
    if (path.back() != '/') return false;
    path.remove_suffix(1);
    // A child of the root is "/<name>"; any other node "<parent path>/<name>".
    if (at(n.parent).parent == kNoNode) return path.empty();
    id = n.parent;
  }
}

std::size_t DataTree::slot_of(std::string_view path, std::uint32_t h) const noexcept {
  const std::size_t mask = index_.size() - 1;
  for (std::size_t i = h & mask;; i = (i + 1) & mask) {
    const Slot& s = index_[i];
    if (s.id == kNoNode || (s.hash == h && has_path(s.id, path))) return i;
  }
}

NodeId DataTree::find(std::string_view path) const {
  if (path.empty()) path = "/";  // ZooKeeper's node map aliases "" to the root
  return index_[slot_of(path, hash_path(path))].id;
}

std::string DataTree::path(NodeId id) const {
  if (at(id).parent == kNoNode) return "/";
  std::size_t length = 0;
  for (NodeId i = id; at(i).parent != kNoNode; i = at(i).parent) length += 1 + at(i).name.size();
  std::string out(length, '/');
  for (NodeId i = id; at(i).parent != kNoNode; i = at(i).parent) {
    std::string_view name = at(i).name.view();
    length -= name.size();
    std::copy(name.begin(), name.end(), out.begin() + static_cast<std::ptrdiff_t>(length));
    --length;  // the '/' before it is already there
  }
  return out;
}

void DataTree::index_add(NodeId id, std::uint32_t h) {
  const std::size_t mask = index_.size() - 1;
  std::size_t i = h & mask;
  while (index_[i].id != kNoNode) i = (i + 1) & mask;
  index_[i] = Slot{id, h};
}

void DataTree::grow_index() {
  std::vector<Slot> old(index_.size() * 2);
  old.swap(index_);
  for (const Slot& s : old) {
    if (s.id != kNoNode) index_add(s.id, s.hash);
  }
}

NodeId DataTree::insert(std::string_view path, NodeId parent, Node fields) {
  NodeId id;
  if (!free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    if ((allocated_ & kChunkMask) == 0) {
      void* raw = ::operator new(sizeof(Node) << kChunkBits);
      chunks_.emplace_back(static_cast<Node*>(raw));
    }
    id = allocated_;
    new (&at(id)) Node();
    ++allocated_;
  }
  Node& n = at(id);
  n = std::move(fields);
  n.name = parent == kNoNode ? std::string_view() : path.substr(path.rfind('/') + 1);
  n.parent = parent;
  n.children = ChildIds{};
  n.path_hash = hash_path(path);
  if (parent != kNoNode) {
    ChildIds& siblings = at(parent).children;
    n.slot = static_cast<std::uint32_t>(siblings.size());
    siblings.push_back(id);
  }
  if ((count_ + 1) * 2 > index_.size()) grow_index();
  assert(index_[slot_of(path, n.path_hash)].id == kNoNode);
  index_add(id, n.path_hash);
  ++count_;
  return id;
}

Node DataTree::erase(NodeId id) {
  Node& n = at(id);
  assert(n.children.empty());
  if (n.parent != kNoNode) {
    ChildIds& siblings = at(n.parent).children;
    NodeId moved = siblings.back();
    siblings[n.slot] = moved;
    at(moved).slot = n.slot;
    siblings.pop_back();
  }
  // Linear probing without tombstones: close the gap by shifting back each
  // later entry of the run that may live in it.
  const std::size_t mask = index_.size() - 1;
  std::size_t hole = n.path_hash & mask;
  while (index_[hole].id != id) hole = (hole + 1) & mask;
  for (std::size_t j = (hole + 1) & mask; index_[j].id != kNoNode; j = (j + 1) & mask) {
    std::size_t home = index_[j].hash & mask;
    if (((j - home) & mask) >= ((j - hole) & mask)) {
      index_[hole] = index_[j];
      hole = j;
    }
  }
  index_[hole] = Slot{};
  --count_;
  Node out = std::move(n);
  n = Node{};
  free_.push_back(id);
  return out;
}

Stat DataTree::stat(NodeId id) const {
  const Node& n = at(id);
  Stat s;
  s.czxid = n.st.czxid;
  s.mzxid = n.st.mzxid;
  s.ctime = n.st.ctime;
  s.mtime = n.st.mtime;
  s.version = n.st.version;
  s.aversion = n.st.aversion;
  s.dataLength = static_cast<std::int32_t>(n.data.size());
  s.numChildren = static_cast<std::int32_t>(n.children.size());
  // DataNode.copyStat: the stored cversion counts child creates (it names
  // sequential children); clients see 2 * creates - children, i.e. creates
  // plus deletes. Containers and TTL nodes show no owner.
  s.cversion = static_cast<std::int32_t>(static_cast<std::uint32_t>(n.st.cversion) * 2u -
                                         static_cast<std::uint32_t>(s.numChildren));
  std::int64_t owner = n.st.ephemeral_owner;
  bool extended = owner == kContainerOwner || (owner & kTtlOwnerMask) == kTtlOwnerMask;
  s.ephemeralOwner = extended ? 0 : owner;
  s.pzxid = n.st.pzxid;
  return s;
}

std::vector<std::string> DataTree::child_names(NodeId id) const {
  // Sorting views first moves no strings around; a few children (the usual
  // case) are sorted on the stack.
  const ChildIds& children = at(id).children;
  auto sorted_names = [&](std::string_view* views) {
    std::size_t n = 0;
    for (NodeId c : children) views[n++] = at(c).name.view();
    std::sort(views, views + n);
    return std::vector<std::string>(views, views + n);
  };
  if (children.size() <= 16) {
    std::array<std::string_view, 16> views;
    return sorted_names(views.data());
  }
  std::vector<std::string_view> views(children.size());
  return sorted_names(views.data());
}

std::int64_t DataTree::count_descendants(NodeId id) const {
  std::int64_t count = 0;
  std::vector<NodeId> stack(at(id).children.begin(), at(id).children.end());
  while (!stack.empty()) {
    NodeId c = stack.back();
    stack.pop_back();
    ++count;
    stack.insert(stack.end(), at(c).children.begin(), at(c).children.end());
  }
  return count;
}

}  // namespace zksim::detail
