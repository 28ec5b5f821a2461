// The test-side JSON Schema validator (support/json_schema.h) on small schemas and documents: what each
// keyword accepts and refuses, so a passing schema check means something.
#include "json_schema.h"

#include <gtest/gtest.h>

namespace ma::test {
namespace {

std::vector<std::string> check(const std::string& schema, const std::string& doc) {
  const json::Document s = json::Document::parse(schema, "schema");
  const json::Document d = json::Document::parse(doc, "doc");
  return schema_violations(s.root(), d.root());
}

constexpr const char* kSchema = R"({
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["n", "kind"],
  "additionalProperties": false,
  "properties": {
    "n": {"type": "integer", "minimum": 1},
    "kind": {"enum": ["a", "b"]},
    "list": {"type": "array", "items": {"type": ["string", "null"]}},
    "open": {"type": "object", "additionalProperties": {"type": "boolean"}}
  }
})";

TEST(JsonSchema, AValidDocumentHasNoViolations) {
  EXPECT_TRUE(check(kSchema, R"({"n": 3, "kind": "a", "list": ["x", null], "open": {"p": true}})").empty());
}

TEST(JsonSchema, EachKeywordRefusesWhatItForbids) {
  struct Case {
    const char* doc;
    const char* violation;
  };
  for (const Case& c :
       {Case{R"({"kind": "a"})", "/: required property 'n' missing"},
        Case{R"({"n": 1.5, "kind": "a"})", "/n: expected integer"},
        Case{R"({"n": 0, "kind": "a"})", "/n: below the minimum 1"},
        Case{R"({"n": 1, "kind": "c"})", "/kind: not one of the enumerated values"},
        Case{R"({"n": 1, "kind": "a", "x": 1})", "/x: property not allowed"},
        Case{R"({"n": 1, "kind": "a", "list": ["x", 2]})", "/list/1: expected string or null"},
        Case{R"({"n": 1, "kind": "a", "open": {"p": 1}})", "/open/p: expected boolean"},
        Case{R"([1])", "/: expected object"}}) {
    const std::vector<std::string> v = check(kSchema, c.doc);
    ASSERT_EQ(v.size(), 1u) << c.doc;
    EXPECT_EQ(v[0], c.violation) << c.doc;
  }
}

TEST(JsonSchema, AKeywordTheValidatorDoesNotKnowIsReported) {
  const std::vector<std::string> v = check(R"({"type": "string", "pattern": "^a"})", R"("abc")");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_NE(v[0].find("'pattern' is not supported"), std::string::npos);
}

}  // namespace
}  // namespace ma::test
