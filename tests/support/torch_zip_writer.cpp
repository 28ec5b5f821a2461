#include "torch_zip_writer.h"

namespace ma::test {
namespace {

void put_le_bytes(std::string& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

}  // namespace

std::string stored_zip(const std::vector<ZipMember>& members) {
  std::string out, directory;
  for (const ZipMember& m : members) {
    const std::string& local = m.local_name.empty() ? m.name : m.local_name;
    const uint64_t offset = out.size();
    const uint64_t listed = m.listed_size.value_or(m.data.size());
    for (std::string* part : {&out, &directory}) {
      const bool central = part == &directory;
      put_le_bytes(*part, central ? 0x02014b50 : 0x04034b50, 4);
      if (central) put_le_bytes(*part, 20, 2);  // version made by
      put_le_bytes(*part, 20, 2);               // version needed
      put_le_bytes(*part, m.flags, 2);
      put_le_bytes(*part, 0, 2);  // stored
      put_le_bytes(*part, 0, 4);  // time, date
      put_le_bytes(*part, 0, 4);  // crc (not checked)
      put_le_bytes(*part, central ? listed : m.data.size(), 4);
      put_le_bytes(*part, central ? listed : m.data.size(), 4);
      put_le_bytes(*part, (central ? m.name : local).size(), 2);
      put_le_bytes(*part, 0, 2);  // extra
      if (central) {
        put_le_bytes(*part, 0, 2);  // comment
        put_le_bytes(*part, 0, 2);  // disk
        put_le_bytes(*part, 0, 2);  // internal attributes
        put_le_bytes(*part, 0, 4);  // external attributes
        put_le_bytes(*part, offset, 4);
      }
      *part += central ? m.name : local;
    }
    out += m.data;
  }
  const uint64_t directory_at = out.size();
  out += directory;
  put_le_bytes(out, 0x06054b50, 4);
  put_le_bytes(out, 0, 4);
  put_le_bytes(out, members.size(), 2);
  put_le_bytes(out, members.size(), 2);
  put_le_bytes(out, directory.size(), 4);
  put_le_bytes(out, directory_at, 4);
  put_le_bytes(out, 0, 2);
  return out;
}

std::string float_state_dict_pickle(const std::vector<std::pair<std::string, uint32_t>>& tensors) {
  auto text = [](const std::string& s) {  // BINUNICODE
    std::string out = "X";
    put_le_bytes(out, s.size(), 4);
    return out + s;
  };
  auto int32 = [](uint32_t v) {  // BININT
    std::string out = "J";
    put_le_bytes(out, v, 4);
    return out;
  };
  std::string p = "\x80\x02}";  // PROTO 2, EMPTY_DICT
  for (size_t i = 0; i < tensors.size(); ++i) {
    const auto& [name, numel] = tensors[i];
    // name: _rebuild_tensor_v2(pid ('storage', FloatStorage, key, 'cpu', numel), 0, (numel,), (1,), False,
    // OrderedDict()), then SETITEM.
    p += text(name) + "ctorch._utils\n_rebuild_tensor_v2\n((" + text("storage") + "ctorch\nFloatStorage\n" +
         text(std::to_string(i)) + text("cpu") + int32(numel) + "tQ";
    p += "K";
    p += '\0';
    p += int32(numel) + "\x85K\x01\x85\x89" + "ccollections\nOrderedDict\n)RtRs";
  }
  return p + ".";
}

std::string float_torch_zip(const std::vector<std::pair<std::string, uint32_t>>& tensors, char fill) {
  std::vector<ZipMember> members = {{"archive/data.pkl", float_state_dict_pickle(tensors)}};
  for (size_t i = 0; i < tensors.size(); ++i)
    members.push_back(
        {"archive/data/" + std::to_string(i), std::string(size_t{4} * tensors[i].second, fill)});
  return stored_zip(members);
}

}  // namespace ma::test
