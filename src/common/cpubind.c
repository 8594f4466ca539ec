/* SPDX-License-Identifier: Apache-2.0
 *
 * cpubind.c - Slurm's --cpu-bind, --gpu-bind and --hint values (cpubind.h)
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/cpubind.h"
#include "common/xalloc.h"

static const struct {
    const char *word;
    enum cpubind_type type;
} cpu_words[] = {
    {"no", CPUBIND_NONE},        {"none", CPUBIND_NONE},
    {"rank", CPUBIND_RANK},      {"socket", CPUBIND_SOCKETS},
    {"sockets", CPUBIND_SOCKETS}, {"core", CPUBIND_CORES},
    {"cores", CPUBIND_CORES},    {"thread", CPUBIND_THREADS},
    {"threads", CPUBIND_THREADS}, {"ldom", CPUBIND_LDOMS},
    {"ldoms", CPUBIND_LDOMS},
};

/* Slurm forms Drover does not bind (cpubind.h). */
static const char *const cpu_unsupported[] = {
    "rank_ldom", "map_ldom", "mask_ldom", "boards", "board", NULL,
};

const char *cpubind_type_name(enum cpubind_type type)
{
    static const char *const names[] = {
        [CPUBIND_UNSET] = "", [CPUBIND_NONE] = "none",
        [CPUBIND_RANK] = "rank", [CPUBIND_MAP_CPU] = "map_cpu",
        [CPUBIND_MASK_CPU] = "mask_cpu", [CPUBIND_SOCKETS] = "sockets",
        [CPUBIND_CORES] = "cores", [CPUBIND_THREADS] = "threads",
        [CPUBIND_LDOMS] = "ldoms",
    };

    return (size_t)type < sizeof(names) / sizeof(names[0]) ? names[type]
                                                            : "";
}

/* "0x1f" or "1f" into 'set' (bit i: CPU i).  Returns 0 or -1. */
static int parse_mask(const char *s, cpu_set_t *set)
{
    size_t len, bit = 0;

    if (!strncasecmp(s, "0x", 2))
        s += 2;
    len = strlen(s);
    if (len == 0)
        return -1;
    CPU_ZERO(set);
    for (size_t i = len; i-- > 0; bit += 4) {
        int v;

        if (!isxdigit((unsigned char)s[i]))
            return -1;
        v = isdigit((unsigned char)s[i]) ? s[i] - '0'
                                          : tolower((unsigned char)s[i]) - 'a' + 10;
        for (int b = 0; b < 4; b++) {
            if (!(v & (1 << b)))
                continue;
            if (bit + (size_t)b >= CPU_SETSIZE)
                return -1;
            CPU_SET(bit + (size_t)b, set);
        }
    }
    return 0;
}

/* One id, decimal or 0x-hex, into 'set'.  Returns 0 or -1. */
static int parse_id(const char *s, cpu_set_t *set)
{
    bool hex = !strncasecmp(s, "0x", 2);
    char *end;
    long v;

    if (!*s || (hex && !s[2]) || (!hex && !isdigit((unsigned char)*s)))
        return -1;
    errno = 0;
    v = strtol(hex ? s + 2 : s, &end, hex ? 16 : 10);
    if (*end || errno || v < 0 || v >= CPU_SETSIZE)
        return -1;
    CPU_ZERO(set);
    CPU_SET((size_t)v, set);
    return 0;
}

int cpubind_list(const char *list, bool mask, cpu_set_t **sets, size_t *n,
                 drv_error_t *error)
{
    char *copy = xstrdup(list), *save = NULL, *tok;
    size_t cap = 1;
    cpu_set_t *out;

    for (const char *p = list; *p; p++)
        cap += *p == ',';
    out = xzalloc(cap * sizeof(*out));
    *n = 0;
    for (tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if ((mask ? parse_mask(tok, &out[*n]) : parse_id(tok, &out[*n]))
            < 0) {
            errprintf(error, "bad %s \"%s\" in list \"%s\"",
                      mask ? "mask" : "id", tok, list);
            free(copy);
            free(out);
            *n = 0;
            return -1;
        }
        (*n)++;
    }
    free(copy);
    if (*n == 0) {
        free(out);
        return errprintf(error, "empty list \"%s\"", list);
    }
    *sets = out;
    return 0;
}

/* "map_cpu:LIST" / "mask_cpu:LIST" at the head of 'tok' (the rest of the
 * value is the list).  Returns 1 when taken, 0 when not such a word, -1
 * on a bad list. */
static int take_list(const char *tok, struct cpubind *b, drv_error_t *error)
{
    bool map = !strncasecmp(tok, "map_cpu", 7) && (!tok[7] || tok[7] == ':');
    bool mask = !strncasecmp(tok, "mask_cpu", 8)
                && (!tok[8] || tok[8] == ':');
    const char *list = strchr(tok, ':');
    cpu_set_t *sets;
    size_t n;

    if (!map && !mask)
        return 0;
    if (!list || !list[1])
        return errprintf(error, "missing list for "
                                "\"--cpu-bind=<map_cpu|mask_cpu>:<list>\"");
    if (cpubind_list(list + 1, mask, &sets, &n, error) < 0)
        return -1;
    free(sets);
    free(b->list);
    b->list = xstrdup(list + 1);
    b->type = map ? CPUBIND_MAP_CPU : CPUBIND_MASK_CPU;
    return 1;
}

static int cpu_word(const char *tok, struct cpubind *b, drv_error_t *error)
{
    for (size_t i = 0; i < sizeof(cpu_words) / sizeof(cpu_words[0]); i++)
        if (!strcasecmp(tok, cpu_words[i].word)) {
            b->type = cpu_words[i].type;
            FREE_NULL(b->list);
            return 0;
        }
    if (!strcasecmp(tok, "q") || !strcasecmp(tok, "quiet")) {
        b->verbose = false;
        b->quiet = true;
        return 0;
    }
    if (!strcasecmp(tok, "v") || !strcasecmp(tok, "verbose")) {
        b->verbose = true;
        b->quiet = false;
        return 0;
    }
    for (size_t i = 0; cpu_unsupported[i]; i++)
        if (!strncasecmp(tok, cpu_unsupported[i], strlen(cpu_unsupported[i])))
            return errprintf(error, "--cpu-bind=%s is not supported by "
                                    "Drover", cpu_unsupported[i]);
    return errprintf(error, "unrecognized --cpu-bind argument \"%s\"", tok);
}

int cpubind_parse(const char *spec, struct cpubind *b, drv_error_t *error)
{
    const char *p = spec;

    memset(b, 0, sizeof(*b));
    while (p && *p) {
        size_t len = strcspn(p, ",");
        char *tok = xasprintf("%.*s", (int)len, p);
        int rc = take_list(p, b, error);

        if (rc == 0)
            rc = cpu_word(tok, b, error);
        free(tok);
        if (rc < 0) {
            cpubind_clear(b);
            return -1;
        }
        if (rc == 1) /* the list ran to the end */
            break;
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

void cpubind_clear(struct cpubind *b)
{
    if (!b)
        return;
    free(b->list);
    memset(b, 0, sizeof(*b));
}

int cpubind_hint(const char *hint, enum cpubind_type *type,
                 bool *one_thread_per_core, drv_error_t *error)
{
    static const struct {
        const char *word;
        enum cpubind_type type;
        bool one_thread;
    } hints[] = {
        {"compute_bound", CPUBIND_CORES, false},
        {"memory_bound", CPUBIND_CORES, true},
        {"multithread", CPUBIND_THREADS, false},
        {"nomultithread", CPUBIND_THREADS, true},
    };

    for (size_t i = 0; i < sizeof(hints) / sizeof(hints[0]); i++)
        if (!strcasecmp(hint, hints[i].word)) {
            *type = hints[i].type;
            *one_thread_per_core = hints[i].one_thread;
            return 0;
        }
    return errprintf(error, "Invalid --hint argument: %s", hint);
}

/* One --gpu-bind word (the list, if any, runs to the end). */
static int gpu_word(const char *p, struct gpubind *b)
{
    static const char *const lists[] = {"map_gpu:", "mask_gpu:"};
    cpu_set_t *sets;
    size_t n;
    char *end;

    if (!strcasecmp(p, "none") || !strcasecmp(p, "closest")) {
        b->type = tolower((unsigned char)*p) == 'n' ? GPUBIND_NONE
                                                    : GPUBIND_CLOSEST;
        return 0;
    }
    if (!strncasecmp(p, "single:", 7)) {
        long v = strtol(p + 7, &end, 10);

        if (end == p + 7 || *end || v < 1 || v > 65535)
            return -1;
        b->type = GPUBIND_SINGLE;
        b->single = (unsigned)v;
        return 0;
    }
    for (int i = 0; i < 2; i++) {
        size_t len = strlen(lists[i]);

        if (strncasecmp(p, lists[i], len)
            || cpubind_list(p + len, i == 1, &sets, &n, NULL) < 0)
            continue;
        free(sets);
        b->type = i == 0 ? GPUBIND_MAP_GPU : GPUBIND_MASK_GPU;
        b->list = xstrdup(p + len);
        return 0;
    }
    return -1;
}

int gpubind_parse(const char *spec, struct gpubind *b, drv_error_t *error)
{
    const char *p = spec;

    memset(b, 0, sizeof(*b));
    if (!strncasecmp(p, "verbose,", 8)) {
        b->verbose = true;
        p += 8;
    } else if (!strcasecmp(p, "verbose")) {
        b->verbose = true;
        return 0;
    }
    if (gpu_word(p, b) < 0) {
        gpubind_clear(b);
        return errprintf(error, "Invalid --gpu-bind argument: %s", spec);
    }
    return 0;
}

void gpubind_clear(struct gpubind *b)
{
    if (!b)
        return;
    free(b->list);
    memset(b, 0, sizeof(*b));
}
