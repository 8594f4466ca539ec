/* SPDX-License-Identifier: Apache-2.0
 *
 * srun_verbose.c - srun's -v and -vv lines (srun_verbose.h)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/lib/srun_verbose.h"
#include "common/hostlist.h"
#include "common/rlimits.h"

#define DEBUG "srun: debug:  "

void srun_verbose_propagate(FILE *f, int level, unsigned rlimit_mask)
{
    mode_t mask;
    int prio;

    if (level < 2)
        return;
    for (size_t i = 0; i < RLIMIT_ROWS; i++) {
        struct rlimit rl;

        if (!(rlimit_mask & (1u << i))
            || getrlimit(rlimit_table[i].resource, &rl) < 0)
            continue;
        fprintf(f, DEBUG "propagating RLIMIT_%s=%llu\n", rlimit_table[i].name,
                (unsigned long long)rl.rlim_cur);
    }
    errno = 0;
    prio = getpriority(PRIO_PROCESS, 0);
    fprintf(f, DEBUG "propagating SLURM_PRIO_PROCESS=%d\n", errno ? 0 : prio);
    mask = umask(0);
    umask(mask);
    fprintf(f, DEBUG "propagating UMASK=%04o\n", (unsigned)mask);
}

void srun_verbose_alloc_thread(FILE *f, int level, int port)
{
    if (level < 2)
        return;
    fprintf(f, DEBUG "Entering slurm_allocation_msg_thr_create()\n"
               DEBUG "port from net_stream_listen is %d\n"
               DEBUG "Entering _msg_thr_internal\n", port);
}

void srun_verbose_plugins(FILE *f, int level)
{
    if (level < 2)
        return;
    fputs(DEBUG "auth/munge: init: Munge authentication plugin loaded\n"
          DEBUG "hash/k12: init: init: KangarooTwelve hash plugin loaded\n",
          f);
}

/* "2,1(x2)" (SLURM_JOB_CPUS_PER_NODE) as Slurm's -v line writes it, every
 * count with its repetition: "2(x1),1(x2)". */
static void print_cpu_counts(FILE *f, const char *cpus)
{
    const char *p = cpus;

    while (*p) {
        size_t n = strcspn(p, ",");

        fprintf(f, "%s%.*s%s", p == cpus ? "" : ",", (int)n, p,
                memchr(p, '(', n) ? "" : "(x1)");
        p += n + (p[n] == ',');
    }
}

void srun_verbose_job(FILE *f, int level, long job_id)
{
    const char *nodes = getenv("SLURM_JOB_NODELIST");
    const char *cpus = getenv("SLURM_JOB_CPUS_PER_NODE");
    hostlist_t *hl;

    if (level < 1 || !nodes)
        return;
    hl = hostlist_decode(nodes, NULL);
    fprintf(f, "srun: jobid %ld: nodes(%zu):`%s', cpu counts: ", job_id,
            hl ? hostlist_count(hl) : 0, nodes);
    print_cpu_counts(f, cpus ? cpus : "");
    fputc('\n', f);
    hostlist_destroy(hl);
}

/* A node's ranks as Slurm's ranged string: "0", "[0-1]", "[0,2]". */
static char *rank_list(json_t *ranks)
{
    hostlist_t *hl = hostlist_create();
    json_t *r;
    size_t i;
    char *s;

    json_array_foreach(ranks, i, r) {
        char buf[24];

        snprintf(buf, sizeof(buf), "%lld",
                 (long long)json_integer_value(r));
        hostlist_append(hl, buf);
    }
    s = hostlist_encode(hl);
    hostlist_destroy(hl);
    return s;
}

static void launch_debug(FILE *f, const struct srun_vstep *st)
{
    fprintf(f, DEBUG "Entering slurm_step_launch\n");
    if (!st->mpi || !strcmp(st->mpi, "none"))
        fprintf(f, DEBUG "mpi/none: mpi_p_client_prelaunch: Using mpi/none\n");
    fprintf(f, DEBUG "Entering _msg_thr_create()\n"
               DEBUG "initialized stdio listening socket, port %d\n"
               DEBUG "Started IO server thread (%ld)\n"
               DEBUG "Entering _launch_tasks\n",
            st->io_port, (long)getpid());
}

void srun_verbose_launch(FILE *f, int level, const struct srun_vstep *st)
{
    size_t n = json_array_size(st->node_names);

    if (level < 1)
        return;
    if (level >= 2)
        fprintf(f, DEBUG "requesting job %ld, user %u, nodes %zu including "
                   "(%s)\n" DEBUG "cpus %ld, tasks %ld, name %s, relative "
                   "65534\n",
                st->job_id, (unsigned)st->uid, n,
                st->nodelist ? st->nodelist : "(null)", st->cpus, st->ntasks,
                st->name);
    fprintf(f, "srun: launch/slurm: launch_p_step_launch: CpuBindType=%s\n",
            st->cpu_bind ? st->cpu_bind : "(null type)");
    if (level >= 2)
        launch_debug(f, st);
    for (size_t i = 0; i < n; i++) {
        json_t *ranks = json_array_get(st->task_map, i);
        char *list = rank_list(ranks);

        fprintf(f, "srun: launching StepId=%ld.%ld on host %s, %zu tasks: "
                   "%s\n",
                st->job_id, st->step_id,
                json_string_value(json_array_get(st->node_names, i)),
                json_array_size(ranks), list ? list : "");
        free(list);
    }
    fprintf(f, "srun: route/default: init: route default plugin loaded\n");
    for (size_t i = 0; level >= 2 && i < n; i++)
        fprintf(f, DEBUG "launch returned msg_rc=0 err=0 type=8001\n");
}

void srun_verbose_node_started(FILE *f, int level, const char *node,
                               size_t ntasks)
{
    if (level >= 1)
        fprintf(f, "srun: launch/slurm: _task_start: Node %s, %zu tasks "
                   "started\n", node, ntasks);
}

void srun_verbose_task_exit(FILE *f, int level, long job_id, long step_id,
                            const char *node, int rank, int status)
{
    if (level < 1)
        return;
    fprintf(f, "srun: launch/slurm: _task_finish: Received task exit "
               "notification for 1 task of StepId=%ld.%ld "
               "(status=0x%04x).\n", job_id, step_id, (unsigned)status);
    if (!status)
        fprintf(f, "srun: launch/slurm: _task_finish: %s: task %d: "
                   "Completed\n", node ? node : "(null)", rank);
    if (level >= 2)
        fprintf(f, DEBUG "task %d done\n", rank);
}

void srun_verbose_end(FILE *f, int level, bool own_alloc)
{
    if (level < 2)
        return;
    fprintf(f, DEBUG "IO thread exiting\n");
    if (own_alloc)
        fprintf(f, DEBUG "Leaving _msg_thr_internal\n");
}
