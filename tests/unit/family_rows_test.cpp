// The two tables a family lives in agree: every model_type a builder covers (family_registry.h) has its
// identity row in the family table (family_table.h: name, organization, kind, id patterns), so a model we
// can count is never one we cannot name; and a builder's model_type appears once.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "model/family_registry.h"
#include "model/family_table.h"

namespace ma {
namespace {

TEST(FamilyRows, EveryBuilderHasItsIdentityRow) {
  size_t builders = 0;
  for (const FamilyBuilder& f : all_family_builders()) {
    ++builders;
    EXPECT_FALSE(families_for_model_type(f.model_type).empty())
        << "model_type '" << f.model_type << "' has a builder but no row in family_table.cpp";
  }
  EXPECT_GT(builders, 60u);
}

TEST(FamilyRows, EachModelTypeHasOneBuilder) {
  std::set<std::string> seen;
  for (const FamilyBuilder& f : all_family_builders())
    EXPECT_TRUE(seen.insert(std::string(f.model_type)).second) << "two builders for " << f.model_type;
}

TEST(FamilyRows, EveryRowNamesItsKindAndMaker) {
  for (const FamilyRow& r : family_table()) {
    EXPECT_FALSE(r.name.empty());
    EXPECT_FALSE(r.organization.empty()) << r.name;
    EXPECT_FALSE(model_kind_name(r.kind).empty()) << r.name;
  }
}

}  // namespace
}  // namespace ma
