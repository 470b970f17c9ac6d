#include "availability.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#include "child.h"
#include "phase.h"

namespace dlc {
namespace {

// The plugin's available() answer (DLC_OK when it can run), its words in `message`.
int ask_available(const Participant& p, char* message, size_t size) {
  ScopedPhase phase("available()", p.label.c_str(), Party::consumer);
  const int rc = p.plugin.available_slot()(p.plugin.state, message, size);
  message[size - 1] = '\0';
  return rc;
}

}  // namespace

bool probe_availability(std::vector<Participant>& participants, std::string* error) {
  // Every plugin is asked at once, each in a child of its own: a device runtime's start (about
  // 0.2 s for CUDA) is then paid side by side, not once per plugin in turn.
  struct Asking {
    Participant* p;
    pid_t pid;
    int fd;
  };
  std::vector<Asking> asking;
  auto reap_all = [&asking] {
    for (const Asking& a : asking) {
      close(a.fd);
      int status = 0;
      reap_child(a.pid, &status);
    }
  };
  for (Participant& p : participants) {
    if (p.plugin.available_slot() == nullptr) continue;
    int fds[2];
    const pid_t pid = pipe(fds) == 0 ? fork_with_channel(fds) : -1;
    if (pid < 0) {
      *error = "cannot ask " + p.plugin.path + " whether it can run: no pipe or no fork";
      reap_all();
      return false;
    }
    if (pid == 0) {
      char message[512] = {};
      const int rc = ask_available(p, message, sizeof message);
      char line[600];
      const int n = std::snprintf(line, sizeof line, "%d %s", rc, message);
      if (n > 0) (void)!write(fds[1], line, static_cast<size_t>(std::min(n, 599)));
      _exit(0);
    }
    asking.push_back({&p, pid, fds[0]});
  }
  for (const Asking& a : asking) {
    std::string answer;
    char buffer[256];
    for (;;) {
      const ssize_t got = read(a.fd, buffer, sizeof buffer);
      if (got > 0) {
        answer.append(buffer, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        break;
      }
    }
    close(a.fd);
    int status = 0;
    reap_child(a.pid, &status);
    Participant& p = *a.p;
    const size_t space = answer.find(' ');
    const std::string why = space == std::string::npos ? "" : answer.substr(space + 1);
    if (answer.empty()) {
      p.unavailable = "available() of " + p.label + " died (" +
                      (WIFSIGNALED(status) ? std::string(strsignal(WTERMSIG(status)))
                                           : "exit " + std::to_string(WEXITSTATUS(status))) +
                      ")";
    } else if (std::atoi(answer.c_str()) != DLC_OK) {
      p.unavailable = why.empty() ? p.label + " cannot run here" : why;
    }
  }
  return true;
}

void start_device_runtime(const std::vector<Participant>& participants, const CaseDef& c) {
  if (!c.isolated || c.unavailable_party >= 0) return;
  for (const int q : {c.producer, c.consumer}) {
    if (q < 0 || !participants[q].real_device() ||
        participants[q].plugin.available_slot() == nullptr) {
      continue;
    }
    char message[512] = {};
    (void)ask_available(participants[q], message, sizeof message);
  }
}

}  // namespace dlc
