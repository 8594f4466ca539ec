/* SPDX-License-Identifier: Apache-2.0
 *
 * mailtype.c - Slurm's --mail-type values and the subjects of job mail
 */
#include "common/mailtype.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

#include "common/timefmt.h"

/* In scontrol show job's order (Slurm 22.05's print_mail_type()). */
static const struct {
    const char *word;
    uint32_t bits;
    const char *event;
} words[] = {
    {"ARRAY_TASKS", MAIL_ARRAY_TASKS, NULL},
    {"INVALID_DEPEND", MAIL_INVALID_DEPEND, "Invalid dependency"},
    {"BEGIN", MAIL_BEGIN, "Began"},
    {"END", MAIL_END, "Ended"},
    {"FAIL", MAIL_FAIL, "Failed"},
    {"REQUEUE", MAIL_REQUEUE, "Requeued"},
    {"STAGE_OUT", MAIL_STAGE_OUT, "StageOut/Teardown"},
    {"TIME_LIMIT_50", MAIL_TIME50, "Reached 50% of time limit"},
    {"TIME_LIMIT_80", MAIL_TIME80, "Reached 80% of time limit"},
    {"TIME_LIMIT_90", MAIL_TIME90, "Reached 90% of time limit"},
    {"TIME_LIMIT", MAIL_TIME100, "Reached time limit"},
    {"ALL", MAIL_ALL, NULL},
    {"NONE", 0, NULL},
};

#define NWORDS (sizeof(words) / sizeof(words[0]))

static int word_bits(const char *tok, size_t len, uint32_t *bits)
{
    for (size_t i = 0; i < NWORDS; i++)
        if (strlen(words[i].word) == len
            && !strncasecmp(tok, words[i].word, len)) {
            *bits = words[i].bits;
            return 0;
        }
    return -1;
}

int mailtype_parse(const char *s, uint32_t *bits)
{
    uint32_t all = 0, b;
    const char *p = s, *comma;

    if (!s || !*s) {
        errno = EINVAL;
        return -1;
    }
    for (;;) {
        comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (word_bits(p, len, &b) < 0) {
            errno = EINVAL;
            return -1;
        }
        all |= b;
        if (!comma)
            break;
        p = comma + 1;
    }
    *bits = all;
    return 0;
}

char *mailtype_string(uint32_t bits, char *buf, size_t size)
{
    size_t n = 0;

    if (!size)
        return buf;
    buf[0] = '\0';
    if (!(bits & MAIL_TYPE_MASK)) {
        snprintf(buf, size, "NONE");
        return buf;
    }
    for (size_t i = 0; i < NWORDS; i++) {
        if (words[i].bits == MAIL_ALL || !(bits & words[i].bits)
            || n >= size)
            continue; /* ALL and NONE are input words only */
        n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? "," : "",
                              words[i].word);
    }
    return buf;
}

const char *mailtype_event(uint32_t type)
{
    for (size_t i = 0; i < NWORDS; i++)
        if (words[i].event && words[i].bits == type)
            return words[i].event;
    return "unknown";
}

/* ", Queued time 00:00:01" or ", Run time 00:00:02"; "" without one. */
static void put_time(const struct mail_subject *m, char *out, size_t size)
{
    char t[32];

    out[0] = '\0';
    if (m->secs < 0 || m->type == MAIL_INVALID_DEPEND)
        return;
    timefmt_duration(m->secs, 1, t, sizeof(t));
    snprintf(out, size, ", %s time %s",
             m->type == MAIL_BEGIN ? "Queued" : "Run", t);
}

/* ", COMPLETED, ExitCode 0" for END and FAIL; the exit code only when the
 * job exited (a signal leaves it out); a summary's as "[min-max]". */
static void put_term(const struct mail_subject *m, char *out, size_t size)
{
    out[0] = '\0';
    if (m->type != MAIL_END && m->type != MAIL_FAIL)
        return;
    if (m->array_summary && m->max_signal > 0) {
        snprintf(out, size, ", %s, MaxSignal [%d]", m->state, m->max_signal);
    } else if (m->array_summary) {
        int lo = WIFEXITED(m->exit_min) && WIFEXITED(m->exit_max)
                     ? WEXITSTATUS(m->exit_min) : 0;
        int hi = WIFEXITED(m->exit_min) && WIFEXITED(m->exit_max)
                     ? WEXITSTATUS(m->exit_max) : 0;
        snprintf(out, size, ", %s, ExitCode [%d-%d]", m->state, lo, hi);
    } else if (WIFEXITED(m->exit_status))
        snprintf(out, size, ", %s, ExitCode %d", m->state,
                 WEXITSTATUS(m->exit_status));
    else
        snprintf(out, size, ", %s", m->state);
}

char *mail_subject_write(const struct mail_subject *m, char *buf, size_t size)
{
    char who[96], when[64], term[96];

    if (m->array_summary)
        snprintf(who, sizeof(who), "Slurm Array Summary Job_id=%u_* (%u)",
                 m->array_job_id, m->job_id);
    else if (m->array_task)
        snprintf(who, sizeof(who), "Slurm Array Task Job_id=%u_%u (%u)",
                 m->array_job_id, m->array_task_id, m->job_id);
    else
        snprintf(who, sizeof(who), "Slurm Job_id=%u", m->job_id);
    put_time(m, when, sizeof(when));
    put_term(m, term, sizeof(term));
    snprintf(buf, size, "%s Name=%s %s%s%s", who, m->name ? m->name : "",
             mailtype_event(m->type), when, term);
    return buf;
}
