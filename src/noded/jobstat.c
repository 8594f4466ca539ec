/* SPDX-License-Identifier: Apache-2.0
 *
 * jobstat.c - a running job's use of this node, from /proc (jobstat.h)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "noded/cgroup.h"
#include "noded/jobstat.h"
#include "noded/noded.h"

/* One process's figures. */
struct proc_use {
    uint64_t cpu_us, rss_kib, vm_kib, read_bytes, write_bytes;
};

/* utime, stime (clock ticks), vsize (bytes) and rss (pages) of
 * /proc/PID/stat: fields 14, 15, 23 and 24, counted after the command
 * name's closing parenthesis (the name may hold spaces).  False when
 * the process is gone. */
static bool read_stat(pid_t pid, struct proc_use *u)
{
    static long tick, page_kib;
    unsigned long long utime, stime, vsize;
    long long rss;
    char path[64], buf[1024], *p;
    size_t n;
    FILE *f;

    if (!tick) {
        tick = sysconf(_SC_CLK_TCK);
        page_kib = sysconf(_SC_PAGESIZE) / 1024;
    }
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    if (!(f = fopen(path, "re")))
        return false;
    n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    if (!(p = strrchr(buf, ')'))
        || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu "
                         "%llu %*d %*d %*d %*d %*d %*d %*u %llu %lld",
                  &utime, &stime, &vsize, &rss) != 4)
        return false;
    u->cpu_us = (utime + stime) * 1000000ull / (unsigned long long)tick;
    u->vm_kib = vsize / 1024;
    u->rss_kib = rss > 0 ? (uint64_t)rss * (uint64_t)page_kib : 0;
    return true;
}

/* read_bytes and write_bytes of /proc/PID/io (0 when unreadable). */
static void read_io(pid_t pid, struct proc_use *u)
{
    char path[64], line[128];
    unsigned long long v;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/io", (int)pid);
    if (!(f = fopen(path, "re")))
        return;
    while (fgets(line, sizeof(line), f)) {
        if (sscanf(line, "read_bytes: %llu", &v) == 1)
            u->read_bytes = v;
        else if (sscanf(line, "write_bytes: %llu", &v) == 1)
            u->write_bytes = v;
    }
    fclose(f);
}

static json_t *step_json(const struct cgroup_step_procs *sp)
{
    struct proc_use sum = {0}, max = {0}, u;
    uint64_t min_cpu = UINT64_MAX;
    json_int_t procs = 0;
    json_t *pids = json_array(), *o;

    for (size_t i = 0; i < sp->npids; i++) {
        u = (struct proc_use){0};
        if (!read_stat(sp->pids[i], &u))
            continue;
        read_io(sp->pids[i], &u);
        json_array_append_new(pids, json_integer(sp->pids[i]));
        procs++;
        sum.cpu_us += u.cpu_us;
        sum.rss_kib += u.rss_kib;
        sum.vm_kib += u.vm_kib;
        sum.read_bytes += u.read_bytes;
        sum.write_bytes += u.write_bytes;
        max.rss_kib = u.rss_kib > max.rss_kib ? u.rss_kib : max.rss_kib;
        max.vm_kib = u.vm_kib > max.vm_kib ? u.vm_kib : max.vm_kib;
        max.read_bytes = u.read_bytes > max.read_bytes ? u.read_bytes
                                                       : max.read_bytes;
        max.write_bytes = u.write_bytes > max.write_bytes
                              ? u.write_bytes : max.write_bytes;
        min_cpu = u.cpu_us < min_cpu ? u.cpu_us : min_cpu;
    }
    o = json_pack(
        "{s:s s:I s:I s:I s:I s:I s:I s:I s:I s:I s:I s:I}", "step",
        sp->step, "processes", procs, "cpu_us", (json_int_t)sum.cpu_us,
        "min_cpu_us", (json_int_t)(procs ? min_cpu : 0), "rss_kib",
        (json_int_t)sum.rss_kib, "max_rss_kib", (json_int_t)max.rss_kib,
        "vm_kib", (json_int_t)sum.vm_kib, "max_vm_kib",
        (json_int_t)max.vm_kib, "read_bytes", (json_int_t)sum.read_bytes,
        "max_read_bytes", (json_int_t)max.read_bytes, "write_bytes",
        (json_int_t)sum.write_bytes, "max_write_bytes",
        (json_int_t)max.write_bytes);
    json_object_set_new(o, "pids", pids);
    return o;
}

json_t *jobstat_steps(const struct noded *nd, uint32_t job_id)
{
    struct cgroup_step_procs *steps;
    json_t *arr = json_array();
    size_t n;

    cgroup_job_procs(nd->cgroup, job_id, &steps, &n);
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, step_json(&steps[i]));
    cgroup_step_procs_free(steps, n);
    return arr;
}
