// A minimal JSON Schema (draft 2020-12) validator for the keywords our published schemas use: type (a name or
// a list; "integer" is a number written without fraction or exponent), required, properties,
// additionalProperties (false or a schema), items, enum, minimum. Annotations ($schema, $id, title,
// description) are ignored; any other keyword is reported, so a schema cannot rely on one this validator
// would silently skip.
#pragma once
#include <string>
#include <vector>

#include "core/json.h"

namespace ma::test {

// Every violation as "<JSON pointer>: <what>", empty when `doc` is valid.
std::vector<std::string> schema_violations(const json::Value& schema, const json::Value& doc);

}  // namespace ma::test
