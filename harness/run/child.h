// Waiting for a forked child: the runner's workers and cases, and the availability probe's.
#pragma once

#include <sys/types.h>
#include <sys/wait.h>

#include <cerrno>

namespace dlc {

// Waits for `pid` to end, through interruptions: true with its status once it is reaped.
inline bool reap_child(pid_t pid, int* status) {
  pid_t got;
  while ((got = waitpid(pid, status, 0)) < 0 && errno == EINTR) {
  }
  return got == pid;
}

}  // namespace dlc
