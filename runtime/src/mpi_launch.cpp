#include "mpi_launch.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "shard/errors.h"

namespace shard::detail {

std::optional<LaunchedRanks> ranks_from_mpi_launcher() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "MV2_COMM_WORLD_SIZE"}) {
    const char* text = std::getenv(name);
    if (text == nullptr || *text == '\0') continue;
    char* end = nullptr;
    errno = 0;
    const long size = std::strtol(text, &end, 10);
    if (errno != 0 || *end != '\0') continue;  // not a launcher's count: ignore the variable
    if (size > 1) return LaunchedRanks{size, name};
  }
  return std::nullopt;
}

void refuse_mpi_launch() {
  const auto ranks = ranks_from_mpi_launcher();
  if (!ranks) return;
  const char* allow = std::getenv("SHARD_INDEPENDENT_RANKS");
  if (allow != nullptr && std::strcmp(allow, "1") == 0) return;
  throw UnsupportedError(
      "this process is one of " + std::to_string(ranks->size) + " ranks started by an MPI launcher (" +
      ranks->variable + "=" + std::to_string(ranks->size) +
      "), but this runtime has no MPI backend yet: each rank would run every call whole, on its own "
      "device threads, as an independent copy. Start one process without the launcher, or set "
      "SHARD_INDEPENDENT_RANKS=1 if independent copies per rank are what you want");
}

}  // namespace shard::detail
