/* SPDX-License-Identifier: Apache-2.0
 *
 * job_state.c - the job state table (job_state.h)
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "proto/job_state.h"

static const struct {
    const char *name;
    const char *code;
} job_states[JOB_STATE_COUNT] = {
#define X(id, name, code) [JOB_##id] = {name, code},
    JOB_STATES(X)
#undef X
};

const char *job_state_name(int s)
{
    return s >= 0 && s < JOB_STATE_COUNT ? job_states[s].name : "UNKNOWN";
}

const char *job_state_code(int s)
{
    return s >= 0 && s < JOB_STATE_COUNT ? job_states[s].code : "?";
}

int job_state_parse(const char *s)
{
    for (int i = 0; s && i < JOB_STATE_COUNT; i++)
        if (!strcmp(s, job_states[i].name) || !strcmp(s, job_states[i].code))
            return i;
    return -1;
}

int job_state_lookup(const char *s)
{
    /* the controller's own spelling first: a command reads it per job */
    for (int i = 0; s && i < JOB_STATE_COUNT; i++)
        if (!strcmp(s, job_states[i].name))
            return i;
    for (int i = 0; s && i < JOB_STATE_COUNT; i++)
        if (!strcasecmp(s, job_states[i].name)
            || !strcasecmp(s, job_states[i].code))
            return i;
    return -1;
}

const char *job_state_names_list(void)
{
    static char list[512];

    if (!list[0]) {
        size_t off = 0;

        for (int i = 0; i < JOB_STATE_COUNT && off < sizeof(list); i++)
            off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s",
                                    i ? "," : "", job_states[i].name);
    }
    return list;
}

bool job_state_is_final(int s)
{
    return s >= JOB_COMPLETED && s <= JOB_OOM;
}
