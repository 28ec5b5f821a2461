// Temp files that a killed download left behind. Ours carry the writing process's id: blobs/{etag}.{pid}-{n}
// .incomplete in the cache, {name}.{pid}.incomplete beside a file in --out, and their writer holds an
// exclusive flock on them from just after creating them until they are renamed into place. A SIGKILLed run
// cannot remove its own, so the next download into the same place removes those whose writer is gone: the
// flock can be taken (a writer in another PID namespace, a container sharing the cache or another NFS node,
// has a pid that says nothing here) and kill(pid, 0) fails with ESRCH (the instant between the create and
// the flock). Where the file system does not support flock, the pid alone decides. A live writer's file
// (another download in progress), one of another user's process (EPERM) and huggingface_hub's own
// {etag}.incomplete (no pid: Python locks it instead) are left alone.
#pragma once
#include <sys/types.h>

#include <filesystem>
#include <functional>
#include <optional>
#include <string_view>

namespace ma {

// One of our temp file names taken apart: "{stem}.{pid}.incomplete" or "{stem}.{pid}-{n}.incomplete".
struct IncompleteName {
  std::string_view stem;  // the etag, or the name of the file being written
  pid_t pid = 0;
};
std::optional<IncompleteName> parse_incomplete_name(std::string_view filename);

// Removes the stale temp files directly in `dir` (not below it) whose stem `ours` accepts — in a user's --out
// directory only the temp files of the files this download writes there. Best effort: a file that cannot be
// removed or a directory that cannot be read is left as it is, and the download goes on.
void sweep_stale_incomplete(const std::filesystem::path& dir,
                            const std::function<bool(std::string_view stem)>& ours);

}  // namespace ma
