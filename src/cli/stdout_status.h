// Results go to stdout through stdio; a write can fail (a full disk, /dev/full, a closed pipe) long before
// the buffer is flushed at exit. The command's exit code must say so: a script that runs
// `modelanalyzer --json > out.json` on a full disk must not get exit 0 and half a JSON document.
#pragma once

namespace ma::cli {

// Called where a write to stdout fails; remembers the first errno.
void note_stdout_error();

// Flushes stdout at the end of a command. On a write error: one line on stderr and exit 9 (LocalIO) —
// except EPIPE, the reader having gone away (`| head`), which exits 9 without a message. Otherwise returns
// `exit_code` unchanged.
int finish_stdout(int exit_code);

}  // namespace ma::cli
