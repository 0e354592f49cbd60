#include "records.h"

namespace zksim::wire::detail {

bool read_stat(Reader& r, Stat& s) {
  r.read_long(s.czxid);
  r.read_long(s.mzxid);
  r.read_long(s.ctime);
  r.read_long(s.mtime);
  r.read_int(s.version);
  r.read_int(s.cversion);
  r.read_int(s.aversion);
  r.read_long(s.ephemeralOwner);
  r.read_int(s.dataLength);
  r.read_int(s.numChildren);
  return r.read_long(s.pzxid);
}

void write_stat(Writer& w, const Stat& s) {
  w.write_long(s.czxid);
  w.write_long(s.mzxid);
  w.write_long(s.ctime);
  w.write_long(s.mtime);
  w.write_int(s.version);
  w.write_int(s.cversion);
  w.write_int(s.aversion);
  w.write_long(s.ephemeralOwner);
  w.write_int(s.dataLength);
  w.write_int(s.numChildren);
  w.write_long(s.pzxid);
}

bool read_string(Reader& r, std::string& out, bool& was_null) {
  std::optional<std::string> s;
  if (!r.read_buffer(s)) return false;
  was_null = !s;
  out = s ? std::move(*s) : std::string();
  return true;
}

// Elements are read one by one until the count or the bytes run out; the
// count is never trusted for an allocation.
bool read_acl(Reader& r, AclRead& out) {
  std::optional<std::int32_t> n;
  if (!r.read_vector_length(n)) return false;
  out.null_vector = !n;
  for (std::int32_t i = 0; n && i < *n; ++i) {
    Acl a;
    bool null_scheme = false;
    bool null_id = false;
    r.read_int(a.perms);
    read_string(r, a.id.scheme, null_scheme);
    if (!read_string(r, a.id.id, null_id)) return false;
    out.null_scheme |= null_scheme;
    out.null_id |= null_id;
    out.acl.push_back(std::move(a));
  }
  return !r.failed();
}

void write_acl(Writer& w, const AclList& acl, bool null_vector) {
  if (null_vector) {
    w.write_null();
    return;
  }
  w.write_int(static_cast<std::int32_t>(acl.size()));
  for (const Acl& a : acl) {
    w.write_int(a.perms);
    w.write_buffer(std::string_view(a.id.scheme));
    w.write_buffer(std::string_view(a.id.id));
  }
}

bool read_strings(Reader& r, std::vector<std::string>& out, bool& null_vector, bool& had_null) {
  std::optional<std::int32_t> n;
  if (!r.read_vector_length(n)) return false;
  null_vector = !n;
  for (std::int32_t i = 0; n && i < *n; ++i) {
    std::string s;
    bool was_null = false;
    if (!read_string(r, s, was_null)) return false;
    had_null |= was_null;
    out.push_back(std::move(s));
  }
  return !r.failed();
}

void write_strings(Writer& w, const std::vector<std::string>& v) {
  w.write_int(static_cast<std::int32_t>(v.size()));
  for (const std::string& s : v) w.write_buffer(std::string_view(s));
}

}  // namespace zksim::wire::detail
