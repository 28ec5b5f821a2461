// The layer classes a simulator implements (seed 003's `get_supported_layers()`): the class names and their
// constructor arguments. A built config marks a layer supported when its class is in the catalogue and
// fills `specs` with exactly that class's arguments. The default is Mantile's published classes (one table,
// layer_catalogue.cpp); `build-config --target-layers FILE` replaces it, so a simulator that adds a class
// (say "MLAAttentionLayer") needs no new release of this tool.
#pragma once
#include <string>
#include <vector>

namespace ma {

struct TargetClass {
  std::string name;                    // "GroupedQueryAttentionLayer"
  std::vector<std::string> arguments;  // constructor arguments, in order ("layer_idx", "hidden_size", ...)
};

struct LayerCatalogue {
  std::string source;  // "mantile (built-in)" or the file it was read from
  std::vector<TargetClass> classes;
  const TargetClass* find(std::string_view name) const;
};

// Mantile's classes (gminneci/mantile backend/layers/), `parallelism` and `dtype` left out: they are run
// settings, not model facts.
LayerCatalogue default_layer_catalogue();

// A catalogue file: {"classes": [{"name": "MLAAttentionLayer", "arguments": ["layer_idx", ...]}, ...]}.
// Throws Error(Malformed) naming the file and the field for anything else (an empty or duplicate class
// name, an argument that is not a string, an unknown key); Error(NotFound) / Error(LocalIO) when unreadable.
LayerCatalogue load_layer_catalogue(const std::string& path);

}  // namespace ma
