// Forking and waiting for a child: the runner's worker template, workers and cases, and the
// availability probe's.
#pragma once

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace dlc {

// Forks a child that talks back through `ends` (a pipe or a socket pair), stdio flushed first so
// that neither process writes the other's buffered output: the child keeps ends[1], the parent
// ends[0]. -1 with both ends closed (and errno of the fork) when there is no child to be had.
inline pid_t fork_with_channel(const int ends[2]) {
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    const int error = errno;
    close(ends[0]);
    close(ends[1]);
    errno = error;
    return -1;
  }
  close(ends[pid == 0 ? 0 : 1]);
  return pid;
}

// Waits for `pid` to end, through interruptions: true with its status once it is reaped.
inline bool reap_child(pid_t pid, int* status) {
  pid_t got;
  while ((got = waitpid(pid, status, 0)) < 0 && errno == EINTR) {
  }
  return got == pid;
}

}  // namespace dlc
