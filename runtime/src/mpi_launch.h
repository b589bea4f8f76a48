// Whether this process is one of several ranks started by an MPI launcher (mpirun, mpiexec,
// srun with PMI). The runtime has no MPI backend yet: under such a launcher every rank would
// build a Runtime of its own and run every call whole on its own threads, N independent copies
// that nothing tells apart from one distributed run. Runtime's constructor refuses that unless
// the user asks for independent copies (SHARD_INDEPENDENT_RANKS=1).
#pragma once

#include <optional>
#include <string>

namespace shard::detail {

struct LaunchedRanks {
  long size;              // ranks the launcher started
  std::string variable;   // the environment variable that says so
};

// The launcher's world size when it is more than 1, from the first of the variables that Open
// MPI, MPICH / Intel MPI / Slurm's PMI and MVAPICH set in every rank; nullopt otherwise.
std::optional<LaunchedRanks> ranks_from_mpi_launcher();

// Throws shard::UnsupportedError when ranks_from_mpi_launcher() finds several ranks and
// SHARD_INDEPENDENT_RANKS is not 1.
void refuse_mpi_launch();

}  // namespace shard::detail
