// Where a command writes an output file (--export, --csv, --plot, ...).
//
// A regular file, or a name that does not exist yet, is written atomically (AtomicFile: temp file beside it,
// fsync, rename): readers never see half a file, and a failure leaves the old one. A symlink to a regular
// file is resolved first, so the link survives and its target is replaced. Anything else that exists — a
// character device (/dev/null, /dev/stdout, a terminal), a FIFO, a process substitution `>(gzip > x.gz)` — is
// opened for writing without O_CREAT or O_TRUNC and written through: renaming over it would replace the
// device node or pipe with a regular file (as root, that corrupts /dev). Directories and sockets are refused.
// "-" means standard output.
#pragma once
#include <string>
#include <string_view>

namespace ma {

// Throws Error(LocalIO) naming the path when the target is refused or a write fails (ENOSPC on /dev/full).
void write_output(const std::string& path, std::string_view content);

}  // namespace ma
