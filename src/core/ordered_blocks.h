// Text made in blocks on several threads and handed on in block order: the rows of a large JSON export
// (DeepSeek-V3's 46,183 tensors, 12.5 MB) formatted on every core while the calling thread writes out the
// finished ones. Blocks go through a ring of reused buffers, two per thread, so memory stays a few blocks
// whatever the size of the output.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace ma {

// make(block, text) appends block `block`'s text to `text` (empty when called), on any of `threads` threads;
// emit(text) receives blocks 0, 1, ... in order, on the calling thread. When make throws, the blocks before
// the lowest one that failed are emitted, no later one, and its exception is rethrown once every thread has
// stopped.
void emit_blocks_in_order(size_t blocks, size_t threads,
                          const std::function<void(size_t, std::string&)>& make,
                          const std::function<void(std::string_view)>& emit);

}  // namespace ma
