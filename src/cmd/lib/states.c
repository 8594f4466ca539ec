/* SPDX-License-Identifier: Apache-2.0
 *
 * states.c - job and node state names as the commands print them
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cmd/lib/jsonget.h"
#include "cmd/lib/rowtable.h"
#include "cmd/lib/states.h"
#include "common/xalloc.h"

int job_state_count(void)
{
    return JOB_STATE_COUNT;
}

static job_state_t base_state(const json_t *job)
{
    job_state_t s = job_state_lookup(jstr(job, "job_state"));

    return s < 0 ? JOB_PENDING : s;
}

static job_state_t state(const json_t *job)
{
    if (jbool(job, "completing", false))
        return JOB_COMPLETING;
    /* Slurm's RUNNING+CONFIGURING (PrologSlurmctld running) shows as
     * CONFIGURING, CF */
    if (jbool(job, "configuring", false))
        return JOB_CONFIGURING;
    return job_base_state_of(job);
}

/* 'read'('job'), for a row read once and then kept in its memo 'which'
 * (rowtable.h: the state + 1, 0 while not known): squeue reads a job's
 * states some five times (selection, sort, three printers). */
static job_state_t memoized(const json_t *job, int which,
                            job_state_t (*read)(const json_t *))
{
    struct row_table_row *row = row_table_row_of(job);

    if (!row)
        return read(job);
    if (!row->memo[which])
        row->memo[which] = (uint8_t)(read(job) + 1);
    return (job_state_t)(row->memo[which] - 1);
}

job_state_t job_base_state_of(const json_t *job)
{
    return memoized(job, ROW_MEMO_BASE_STATE, base_state);
}

job_state_t job_state_of(const json_t *job)
{
    return memoized(job, ROW_MEMO_JOB_STATE, state);
}

bool job_state_is_pending(job_state_t s)
{
    return s == JOB_PENDING;
}

bool job_state_is_running(job_state_t s)
{
    return s == JOB_RUNNING;
}

bool job_state_is_completing(job_state_t s)
{
    return s == JOB_COMPLETING;
}

bool job_state_is_active(job_state_t s)
{
    return s == JOB_PENDING || s == JOB_RUNNING || s == JOB_SUSPENDED
           || s == JOB_COMPLETING || s == JOB_CONFIGURING
           || s == JOB_SPECIAL_EXIT; /* held by RequeueExitHold */
}

job_state_t job_state_pending(void)
{
    return JOB_PENDING;
}

job_state_t job_state_running(void)
{
    return JOB_RUNNING;
}

job_state_t job_state_completing(void)
{
    return JOB_COMPLETING;
}

/* Node base states: the controller's name, sinfo's compact and long names,
 * and scontrol's upper-case name.
 */
static const struct {
    int base;
    const char *wire;
    const char *compact;
    const char *lng;
} node_bases[] = {
    {NODE_BASE_UNKNOWN, "UNKNOWN", "unk", "unknown"},
    {NODE_BASE_DOWN, "DOWN", "down", "down"},
    {NODE_BASE_IDLE, "IDLE", "idle", "idle"},
    {NODE_BASE_ALLOCATED, "ALLOCATED", "alloc", "allocated"},
    {NODE_BASE_MIXED, "MIXED", "mix", "mixed"},
    {NODE_BASE_FUTURE, "FUTURE", "futr", "future"},
};

#define NODE_BASE_N (sizeof(node_bases) / sizeof(node_bases[0]))

static size_t base_index(int base)
{
    for (size_t i = 0; i < NODE_BASE_N; i++) {
        if (node_bases[i].base == base)
            return i;
    }
    return 0;
}

struct node_state node_state_of(const json_t *node)
{
    struct node_state st = {.base = NODE_BASE_UNKNOWN};
    const char *s = jstr(node, "state");

    for (size_t i = 0; s && i < NODE_BASE_N; i++) {
        if (strcasecmp(s, node_bases[i].wire) == 0)
            st.base = node_bases[i].base;
    }
    st.drain = jbool(node, "drain", false);
    st.not_responding = jbool(node, "not_responding", false);
    st.planned = jbool(node, "planned", false);
    st.maint = jbool(node, "maint", false);
    st.reserved = jbool(node, "reserved", false);
    st.completing = jbool(node, "completing", false);
    return st;
}

/* Slurm calls a drained node that still runs jobs (or an Epilog)
 * DRAINING. */
static bool draining(struct node_state st)
{
    return st.drain
           && (st.base == NODE_BASE_ALLOCATED || st.base == NODE_BASE_MIXED
               || st.completing);
}

static const char *with_star(const char *name, bool star, char *buf,
                             size_t size)
{
    if (!star)
        return name;
    snprintf(buf, size, "%s*", name);
    return buf;
}

const char *node_state_compact(struct node_state st)
{
    static char buf[32];
    const char *name = node_bases[base_index(st.base)].compact;

    if (st.drain)
        name = draining(st) ? "drng" : "drain";
    else if (st.completing)
        name = "comp";
    else if (st.maint)
        name = "maint";
    else if (st.reserved && st.base == NODE_BASE_IDLE)
        name = "resv";
    else if (st.planned && st.base == NODE_BASE_IDLE)
        name = "plnd";
    else if (st.planned && st.base == NODE_BASE_MIXED)
        name = "mix-"; /* Slurm's MIXED- */
    return with_star(name, st.not_responding, buf, sizeof(buf));
}

const char *node_state_long(struct node_state st)
{
    static char buf[32];
    const char *name = node_bases[base_index(st.base)].lng;

    if (st.drain)
        name = draining(st) ? "draining" : "drained";
    else if (st.completing)
        name = "completing";
    else if (st.maint)
        name = "maint";
    else if (st.reserved && st.base == NODE_BASE_IDLE)
        name = "reserved";
    else if (st.planned && st.base == NODE_BASE_IDLE)
        name = "planned";
    else if (st.planned && st.base == NODE_BASE_MIXED)
        name = "mixed-";
    return with_star(name, st.not_responding, buf, sizeof(buf));
}

char *node_state_complete(struct node_state st)
{
    return xasprintf("%s%s%s%s%s%s%s", node_bases[base_index(st.base)].wire,
                     st.maint ? "+MAINTENANCE" : "",
                     st.reserved ? "+RESERVED" : "",
                     st.completing ? "+COMPLETING" : "",
                     st.drain ? "+DRAIN" : "", st.planned ? "+PLANNED" : "",
                     st.not_responding ? "+NOT_RESPONDING" : "");
}

uint32_t node_state_sort_key(struct node_state st)
{
    return (uint32_t)st.base | (st.drain ? 0x200u : 0)
           | (st.not_responding ? 0x800u : 0) | (st.planned ? 0x200000u : 0)
           | (st.maint ? 0x40000u : 0) | (st.reserved ? 0x80000u : 0)
           | (st.completing ? 0x400u : 0);
}

/* sinfo -t matches a prefix of either name, case-insensitively. */
static bool name_is(const char *name, const char *a, const char *b)
{
    size_t n = strlen(name);

    return n && (strncasecmp(a, name, n) == 0
                 || (b && strncasecmp(b, name, n) == 0));
}

/* As Slurm's sinfo: a drained or draining node matches only the drain
 * names, not its base state ("-t idle" leaves drained idle nodes out). */
bool node_state_matches(const char *name, struct node_state st, bool *known)
{
    *known = true;
    for (size_t i = 0; i < NODE_BASE_N; i++) {
        if (name_is(name, node_bases[i].compact, node_bases[i].lng))
            return st.base == node_bases[i].base && !st.drain;
    }
    if (name_is(name, "drain", NULL))
        return st.drain;
    if (name_is(name, "drained", NULL))
        return st.drain && !draining(st);
    if (name_is(name, "draining", "drng"))
        return draining(st);
    if (name_is(name, "no_respond", NULL))
        return st.not_responding && !st.drain;
    if (name_is(name, "completing", "comp"))
        return st.completing;
    if (name_is(name, "fail", NULL))
        return false;
    *known = false;
    return false;
}
