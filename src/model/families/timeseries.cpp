// Group timeseries: the model_types of timeseries.h's builders.
#include "model/families/timeseries.h"

#include <array>

#include "model/families/family_groups.h"

namespace ma::families {
namespace {

constexpr std::array kTimeSeriesFamilies{
    FamilyBuilder{"timesfm", build_timesfm},
    FamilyBuilder{"patchtst", build_patchtst},
    FamilyBuilder{"patchtsmixer", build_patchtsmixer},
    FamilyBuilder{"time_series_transformer", build_time_series_transformer},
    FamilyBuilder{"informer", build_informer},
    FamilyBuilder{"autoformer", build_autoformer},
};

}  // namespace

std::span<const FamilyBuilder> timeseries() {
  return kTimeSeriesFamilies;
}

}  // namespace ma::families
