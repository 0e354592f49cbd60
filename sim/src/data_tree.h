// The node store behind the Server: nodes in chunked storage (stable
// addresses, ids reused once freed), an open-addressing path index, and each
// node's children as an array of ids (O(1) add and remove). A node stores its
// name, not its path: the index verifies a match by walking up the parents.
// It holds state only; ZooKeeper's rules live in server*.cpp.
#pragma once

#include "zksim/types.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace zksim::detail {

using NodeId = std::uint32_t;
inline constexpr NodeId kNoNode = UINT32_MAX;

// A fast 64-bit hash of a byte string. Its values never reach an output.
std::uint64_t hash_bytes(std::string_view s) noexcept;

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return hash_bytes(s); }
};

// A byte string kept inline up to kInline bytes (small znode data and names
// need no allocation), on the heap beyond. Converts to std::string.
class SmallString {
 public:
  static constexpr std::size_t kInline = 20;

  SmallString() = default;
  explicit SmallString(std::string_view s) { assign(s); }
  SmallString(const SmallString& o) { assign(o.view()); }
  SmallString(SmallString&& o) noexcept : size_(o.size_) {
    std::memcpy(buf_, o.buf_, kInline);
    o.size_ = 0;
  }
  SmallString& operator=(const SmallString& o) {
    if (this != &o) assign(o.view());
    return *this;
  }
  SmallString& operator=(SmallString&& o) noexcept {
    if (this != &o) {
      release();
      size_ = o.size_;
      std::memcpy(buf_, o.buf_, kInline);
      o.size_ = 0;
    }
    return *this;
  }
  SmallString& operator=(std::string_view s) {
    assign(s);
    return *this;
  }
  ~SmallString() { release(); }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  const char* data() const noexcept { return size_ <= kInline ? buf_ : heap(); }
  std::string_view view() const noexcept { return {data(), size_}; }
  operator std::string() const { return std::string(view()); }

 private:
  char* heap() const noexcept {
    char* p;
    std::memcpy(&p, buf_, sizeof p);
    return p;
  }
  void release() noexcept {
    if (size_ > kInline) delete[] heap();
    size_ = 0;
  }
  void assign(std::string_view s);

  std::uint32_t size_ = 0;
  char buf_[kInline];  // the bytes, or the heap pointer when size_ > kInline
};

// A node's child ids, unordered; allocates only when the first child comes.
class ChildIds {
 public:
  ChildIds() = default;
  ChildIds(const ChildIds& o);
  ChildIds(ChildIds&& o) noexcept
      : ids_(o.ids_), size_(o.size_), capacity_(o.capacity_) {
    o.ids_ = nullptr;
    o.size_ = o.capacity_ = 0;
  }
  ChildIds& operator=(ChildIds o) noexcept {
    std::swap(ids_, o.ids_);
    std::swap(size_, o.size_);
    std::swap(capacity_, o.capacity_);
    return *this;
  }
  ~ChildIds() { delete[] ids_; }

  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }
  const NodeId* begin() const noexcept { return ids_; }
  const NodeId* end() const noexcept { return ids_ + size_; }
  NodeId& operator[](std::size_t i) noexcept { return ids_[i]; }
  NodeId back() const noexcept { return ids_[size_ - 1]; }
  void push_back(NodeId id);
  void pop_back() noexcept { --size_; }
  void clear() noexcept { size_ = 0; }

 private:
  NodeId* ids_ = nullptr;
  std::uint32_t size_ = 0;
  std::uint32_t capacity_ = 0;
};

// What ZooKeeper persists of a Stat (StatPersisted): dataLength and
// numChildren are derived.
struct Persisted {
  std::int64_t czxid = 0;
  std::int64_t mzxid = 0;
  std::int64_t pzxid = 0;
  std::int64_t ctime = 0;
  std::int64_t mtime = 0;
  std::int64_t ephemeral_owner = 0;
  std::int32_t version = 0;
  std::int32_t cversion = 0;  // child creates: the next sequential suffix (see DataTree::stat)
  std::int32_t aversion = 0;
};

struct Node {
  Persisted st;
  SmallString data;
  SmallString name;                // the last path component; "" for the root
  ChildIds children;               // unordered; callers sort when order matters
  std::uint32_t acl = 0;
  NodeId parent = kNoNode;
  std::uint32_t slot = 0;          // index in the parent's `children`
  std::uint32_t path_hash = 0;     // finds the node's index slot on erase
};

class DataTree {
 public:
  DataTree();
  ~DataTree();
  DataTree(const DataTree&) = delete;
  DataTree& operator=(const DataTree&) = delete;

  NodeId find(std::string_view path) const;
  Node& at(NodeId id) { return chunks_[id >> kChunkBits].get()[id & kChunkMask]; }
  const Node& at(NodeId id) const { return chunks_[id >> kChunkBits].get()[id & kChunkMask]; }
  // The node's full path, rebuilt from the names of its ancestors.
  std::string path(NodeId id) const;

  // Adds a node. REQUIRES: `path` is absent and its parent is `parent`.
  NodeId insert(std::string_view path, NodeId parent, Node fields);
  // Removes a childless node and returns its fields.
  Node erase(NodeId id);

  Stat stat(NodeId id) const;
  // Child names in byte order.
  std::vector<std::string> child_names(NodeId id) const;
  std::int64_t count_descendants(NodeId id) const;
  std::size_t size() const { return count_; }

 private:
  static constexpr unsigned kChunkBits = 8;
  static constexpr NodeId kChunkMask = (NodeId{1} << kChunkBits) - 1;
  // One index slot: a node id (kNoNode if empty) and the 32-bit hash of its
  // path, which also gives the slot the entry belongs in (hash & mask).
  struct Slot {
    NodeId id = kNoNode;
    std::uint32_t hash = 0;
  };
  static std::uint32_t hash_path(std::string_view path) noexcept {
    return static_cast<std::uint32_t>(hash_bytes(path) >> 32);
  }
  bool has_path(NodeId id, std::string_view path) const noexcept;
  std::size_t slot_of(std::string_view path, std::uint32_t h) const noexcept;
  void index_add(NodeId id, std::uint32_t h);
  void grow_index();

  // Raw storage for 2^kChunkBits nodes each; a node is constructed when its
  // id is first handed out (a small tree touches only the nodes it uses).
  struct ChunkFree {
    void operator()(Node* p) const noexcept { ::operator delete(p); }
  };
  std::vector<std::unique_ptr<Node, ChunkFree>> chunks_;
  NodeId allocated_ = 0;  // ids handed out at least once: the constructed nodes
  std::vector<NodeId> free_;
  std::vector<Slot> index_;  // a power of two in size, at most half full
  std::size_t count_ = 0;
};

}  // namespace zksim::detail
