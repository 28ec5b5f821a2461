#include "json_schema.h"

#include <algorithm>
#include <array>
#include <string_view>

namespace ma::test {
namespace {

constexpr std::array<std::string_view, 4> kAnnotations = {"$schema", "$id", "title", "description"};
constexpr std::array<std::string_view, 7> kKeywords = {
    "type", "required", "properties", "additionalProperties", "items", "enum", "minimum"};

bool has_type(const json::Value& v, std::string_view type) {
  if (type == "integer") return v.is_number() && v.is_integer_literal();
  if (type == "number") return v.is_number();
  if (type == "string") return v.is_string();
  if (type == "boolean") return v.is_bool();
  if (type == "null") return v.is_null();
  if (type == "array") return v.is_array();
  if (type == "object") return v.is_object();
  return false;
}

bool equal(const json::Value& a, const json::Value& b) {
  if (a.type() != b.type()) return false;
  switch (a.type()) {
    case json::Type::Null:
      return true;
    case json::Type::Bool:
      return a.as_bool() == b.as_bool();
    case json::Type::Number:
      return a.as_double() == b.as_double();
    case json::Type::String:
      return a.as_string() == b.as_string();
    default:
      return false;  // enums of containers are not used
  }
}

class Validator {
 public:
  std::vector<std::string> errors;

  void check(const json::Value& schema, const json::Value& v, const std::string& at) {
    if (schema.is_bool()) {
      if (!schema.as_bool()) fail(at, "no value is allowed here");
      return;
    }
    for (const json::Member& m : schema.members())
      if (std::find(kAnnotations.begin(), kAnnotations.end(), m.key) == kAnnotations.end() &&
          std::find(kKeywords.begin(), kKeywords.end(), m.key) == kKeywords.end())
        fail(at, "schema keyword '" + std::string(m.key) + "' is not supported by this validator");
    if (const json::Value* t = schema.find("type")) check_type(*t, v, at);
    if (const json::Value* e = schema.find("enum")) {
      const auto& items = e->items();
      if (std::none_of(items.begin(), items.end(), [&](const json::Value& x) { return equal(x, v); }))
        fail(at, "not one of the enumerated values");
    }
    if (const json::Value* min = schema.find("minimum");
        min && v.is_number() && v.as_double() < min->as_double())
      fail(at, "below the minimum " + std::string(min->raw()));
    if (v.is_object()) check_object(schema, v, at);
    if (const json::Value* items = schema.find("items"); items && v.is_array())
      for (size_t i = 0; i < v.items().size(); ++i) check(*items, v.items()[i], at + "/" + std::to_string(i));
  }

 private:
  void fail(const std::string& at, const std::string& what) {
    errors.push_back((at.empty() ? "/" : at) + ": " + what);
  }

  void check_type(const json::Value& t, const json::Value& v, const std::string& at) {
    std::vector<std::string_view> types;
    if (t.is_string()) types.push_back(t.as_string());
    for (const json::Value& x : t.items()) types.push_back(x.as_string());
    if (std::none_of(types.begin(), types.end(), [&](std::string_view x) { return has_type(v, x); })) {
      std::string list;
      for (std::string_view x : types) list += (list.empty() ? "" : " or ") + std::string(x);
      fail(at, "expected " + list);
    }
  }

  void check_object(const json::Value& schema, const json::Value& v, const std::string& at) {
    if (const json::Value* req = schema.find("required"))
      for (const json::Value& name : req->items())
        if (!v.find(name.as_string()))
          fail(at, "required property '" + std::string(name.as_string()) + "' missing");
    const json::Value* props = schema.find("properties");
    const json::Value* extra = schema.find("additionalProperties");
    for (const json::Member& m : v.members()) {
      const std::string here = at + "/" + std::string(m.key);
      if (const json::Value* p = props ? props->find(m.key) : nullptr) {
        check(*p, m.value, here);
      } else if (extra && extra->is_bool() && !extra->as_bool()) {
        fail(here, "property not allowed");
      } else if (extra && extra->is_object()) {
        check(*extra, m.value, here);
      }
    }
  }
};

}  // namespace

std::vector<std::string> schema_violations(const json::Value& schema, const json::Value& doc) {
  Validator v;
  v.check(schema, doc, "");
  return v.errors;
}

}  // namespace ma::test
