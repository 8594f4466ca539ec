/* SPDX-License-Identifier: Apache-2.0
 *
 * conf_prolog.c - PrologFlags= values
 *
 * Slurm 22.05's words, any case, comma separated.  A word Drover does not
 * run is refused by name at load, never accepted and ignored (the house
 * rule; docs/compatibility.md lists them).  Contain is taken as Alloc, so
 * that a job_container/tmpfs site's slurm.conf loads: droverctld logs at
 * start that there is no extern step.  Prolog=, Epilog=,
 * PrologSlurmctld= and EpilogSlurmctld= are plain rows of conf.c's table.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "conf/conf.h"
#include "conf/conf_private.h"

static const struct {
    const char *word;
    uint32_t flag;
    bool runs; /* Drover does what Slurm does for it (DeferBatch and
                * NoHold: what Drover's Alloc always does) */
} prolog_words[] = {
    { "Alloc", CONF_PROLOG_ALLOC, true },
    /* Contain implies Alloc, as Slurm's (droverctld logs that there is no
     * extern step) */
    { "Contain", CONF_PROLOG_CONTAIN, true },
    { "DeferBatch", CONF_PROLOG_DEFER_BATCH, true },  /* Alloc always */
    { "ForceRequeueOnFail", CONF_PROLOG_FORCE_REQUEUE, false },
    { "NoHold", CONF_PROLOG_NOHOLD, true },  /* salloc never waits */
    { "RunInJob", CONF_PROLOG_RUN_IN_JOB, false },
    { "Serial", CONF_PROLOG_SERIAL, true },
    { "X11", CONF_PROLOG_X11, false },
};
#define PROLOG_WORD_COUNT (sizeof(prolog_words) / sizeof(prolog_words[0]))

/* The refusal of the last bad value (configuration is read by one
 * thread). */
static char why[160];

const char *conf__set_prolog_flags(uint32_t *field, const char *value)
{
    uint32_t v = 0;
    const char *p = value;

    while (*p) {
        size_t n = strcspn(p, ",");
        size_t i;

        for (i = 0; i < PROLOG_WORD_COUNT; i++)
            if (strlen(prolog_words[i].word) == n
                && !strncasecmp(p, prolog_words[i].word, n))
                break;
        if (n && i == PROLOG_WORD_COUNT) {
            snprintf(why, sizeof(why), "unknown flag '%.*s' (expected "
                     "Alloc, Contain, DeferBatch, ForceRequeueOnFail, "
                     "NoHold, RunInJob, Serial or X11)", (int)n, p);
            return why;
        }
        if (n && !prolog_words[i].runs) {
            /* short: the error's text holds file, line and value too */
            snprintf(why, sizeof(why), "flag '%s' unsupported by Drover",
                     prolog_words[i].word);
            return why;
        }
        if (n)
            v |= prolog_words[i].flag;
        if (n && prolog_words[i].flag == CONF_PROLOG_CONTAIN)
            v |= CONF_PROLOG_ALLOC;
        p += n;
        if (*p == ',')
            p++;
    }
    *field = v;
    return NULL;
}

char *conf_prolog_flags_string(uint32_t flags, char *buf, size_t size)
{
    size_t off = 0;

    snprintf(buf, size, "(null)");
    for (size_t i = 0; i < PROLOG_WORD_COUNT && size; i++) {
        if (!(flags & prolog_words[i].flag))
            continue;
        off += (size_t)snprintf(buf + off, off < size ? size - off : 0,
                                "%s%s", off ? "," : "", prolog_words[i].word);
        if (off >= size)
            break;
    }
    return buf;
}
