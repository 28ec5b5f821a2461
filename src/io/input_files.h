// The files this run has opened for reading, by device and inode: an output never replaces one. A report
// exported over the model's config.json, or a comparison over a checkpoint it read, would destroy the input
// (the atomic rename replaces even a read-only file), so write_output refuses such a path whatever its
// spelling (a symlink, "./", a hard link).
#pragma once
#include <cstdint>

namespace ma {

// Called by every local read (FileSource); safe from any thread.
void note_input_file(uint64_t device, uint64_t inode);
bool is_input_file(uint64_t device, uint64_t inode);

}  // namespace ma
