// Atomic report writes: a run of hours must not end with a half-written report, and a CI step
// reading the previous report while a new one is written must never see a torn file.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "report.h"

namespace dlc {

bool write_file_atomic(const std::string& path, std::string_view content,
                       std::string* error) noexcept {
  try {
    const std::string temp = path + ".tmp." + std::to_string(getpid());
    int fd = -1;
    auto fail = [&](int err) {
      if (fd >= 0) close(fd);
      unlink(temp.c_str());
      if (error != nullptr) *error = "cannot write report " + path + ": " + std::strerror(err);
      return false;
    };
    // O_EXCL: never write through a file or link someone else left under the temporary name.
    fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno == EEXIST) {  // our own leftover from a killed run with the same pid
      unlink(temp.c_str());
      fd = open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    }
    if (fd < 0) {
      const int err = errno;
      // The temporary file was never created; removing it could only delete someone else's.
      if (error != nullptr) *error = "cannot write report " + path + ": " + std::strerror(err);
      return false;
    }
    struct stat old {};
    if (stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode)) fchmod(fd, old.st_mode & 07777);
    for (size_t written = 0; written < content.size();) {
      const ssize_t n = write(fd, content.data() + written, content.size() - written);
      if (n < 0) {
        if (errno == EINTR) continue;
        return fail(errno);
      }
      written += static_cast<size_t>(n);
    }
    // fsync before rename: otherwise a crash can leave the new name pointing at an empty file.
    if (fsync(fd) != 0) return fail(errno);
    const int closed = close(fd);
    fd = -1;
    if (closed != 0) return fail(errno);
    if (rename(temp.c_str(), path.c_str()) != 0) return fail(errno);
    return true;
  } catch (...) {  // only std::bad_alloc can get here; the message itself needs memory
    return false;
  }
}

}  // namespace dlc
