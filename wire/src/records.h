// jute records shared by requests and replies: Stat, ACL lists, string
// vectors. Private to the codec.
#pragma once

#include "zksim/types.h"
#include "zksim/wire/jute.h"

#include <optional>
#include <string>
#include <vector>

namespace zksim::wire::detail {

bool read_stat(Reader& r, Stat& out);
void write_stat(Writer& w, const Stat& stat);

// An ACL list. `null_vector`: the vector was null. `null_field`: some
// scheme or id inside was null (kept as "").
struct AclRead {
  AclList acl;
  bool null_vector = false;
  bool null_scheme = false;
  bool null_id = false;
};
bool read_acl(Reader& r, AclRead& out);
void write_acl(Writer& w, const AclList& acl, bool null_vector = false);

// A vector<ustring>; `had_null` is set when an element was null (kept as "").
bool read_strings(Reader& r, std::vector<std::string>& out, bool& null_vector, bool& had_null);
void write_strings(Writer& w, const std::vector<std::string>& v);

// A ustring where null becomes "" and sets `was_null`.
bool read_string(Reader& r, std::string& out, bool& was_null);

}  // namespace zksim::wire::detail
