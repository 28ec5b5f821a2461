// The parameters a simulator class builds from its constructor arguments, for Mantile's published classes
// (layer_catalogue.h's default): what a config entry promises the simulator will reproduce. A layer the
// class cannot rebuild from the arguments it takes (an output gate on the attention, experts in a latent
// space, two position tables in one entry) must not be marked supported with arguments that build another
// layer.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "analysis/builder/layer_components.h"

namespace ma {

// The count `class_name` builds from `facts` (its arguments by name); nullopt for a class whose formula is
// not known here (a catalogue's own) or an argument missing or null.
std::optional<uint64_t> class_parameters(std::string_view class_name, const Facts& facts);

}  // namespace ma
