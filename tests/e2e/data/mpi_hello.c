/* SPDX-License-Identifier: Apache-2.0
 *
 * mpi_hello.c - built by tests/e2e/test_mpi.py with mpicc: each rank
 * prints its rank, the world size, its node and the sum of all ranks.
 * With the argument "abort", rank 1 calls MPI_Abort(3) while the others
 * wait in a barrier that can only end by the step being killed.  With
 * "local", each line also gives SLURM_PROCID and the world ranks MPI
 * counts as on the same node (MPI_COMM_TYPE_SHARED, from PMIx's map).
 */
#include <string.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    const char *node = getenv("SLURMD_NODENAME");
    int rank, size, sum = 0;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc > 1 && !strcmp(argv[1], "abort")) {
        if (rank == 1)
            MPI_Abort(MPI_COMM_WORLD, 3);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (argc > 1 && !strcmp(argv[1], "local")) {
        const char *procid = getenv("SLURM_PROCID");
        MPI_Comm shared;
        int n, *ranks;

        MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank,
                            MPI_INFO_NULL, &shared);
        MPI_Comm_size(shared, &n);
        ranks = calloc((size_t)n, sizeof(*ranks));
        MPI_Allgather(&rank, 1, MPI_INT, ranks, 1, MPI_INT, shared);
        printf("rank %d of %d on %s sum %d procid %s local", rank, size,
               node ? node : "?", sum, procid ? procid : "?");
        for (int i = 0; i < n; i++)
            printf("%s%d", i ? "," : " ", ranks[i]);
        printf("\n");
        free(ranks);
        MPI_Comm_free(&shared);
    } else {
        printf("rank %d of %d on %s sum %d\n", rank, size,
               node ? node : "?", sum);
    }
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
