/* SPDX-License-Identifier: Apache-2.0
 *
 * sreport_print.c - sreport's tables (Slurm 22.05 cluster_reports.c,
 * user_reports.c and print_fields.c layouts, rewritten)
 *
 * One line per (row, TRES).  Field names match as Slurm's do: a prefix of
 * the name at least N letters long, tried in Slurm's order, which is why
 * "planned" means PLND Down and "res" means Planned.
 */
#include <errno.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/lib/print_fields.h"
#include "cmd/lib/sreport_print.h"
#include "common/timefmt.h"
#include "common/xalloc.h"

/* ---- -t ---- */

static const struct {
    const char *name;
    int min;
    enum sreport_time t;
    const char *words;
} times[] = {
    {"SecPer", 6, SREPORT_SECS_PER, "Seconds/Percentage of Total"},
    {"MinPer", 6, SREPORT_MINS_PER, "Minutes/Percentage of Total"},
    {"HourPer", 6, SREPORT_HOURS_PER, "Hours/Percentage of Total"},
    {"Seconds", 1, SREPORT_SECS, "Seconds"},
    {"Minutes", 1, SREPORT_MINS, "Minutes"},
    {"Hours", 1, SREPORT_HOURS, "Hours"},
    {"Percent", 1, SREPORT_PERCENT, "Percentage of Total"},
};

#define NTIMES (sizeof(times) / sizeof(times[0]))

/* Slurm's strncasecmp(name, s, MAX(strlen(s), min)). */
static bool matches(const char *name, const char *s, int min)
{
    size_t len = strlen(s);

    return !strncasecmp(name, s, len > (size_t)min ? len : (size_t)min);
}

int sreport_time_parse(const char *s, enum sreport_time *out)
{
    for (size_t i = 0; i < NTIMES; i++)
        if (matches(times[i].name, s, times[i].min)) {
            *out = times[i].t;
            return 0;
        }
    errno = EINVAL;
    return -1;
}

const char *sreport_time_name(enum sreport_time t)
{
    for (size_t i = 0; i < NTIMES; i++)
        if (times[i].t == t)
            return times[i].words;
    return "Minutes";
}

char *sreport_time_str(enum sreport_time t, uint64_t value, uint64_t total)
{
    double v = (double)value, pct = 100.0 * v / (double)(total ? total : 1);

    switch (t) {
    case SREPORT_SECS:
        return xasprintf("%llu", (unsigned long long)value);
    case SREPORT_HOURS:
        return xasprintf("%.0lf", v / 3600);
    case SREPORT_PERCENT:
        return xasprintf("%.2lf%%", pct);
    case SREPORT_SECS_PER:
        return xasprintf("%llu(%.2lf%%)", (unsigned long long)value, pct);
    case SREPORT_MINS_PER:
        return xasprintf("%.0lf(%.2lf%%)", v / 60, pct);
    case SREPORT_HOURS_PER:
        return xasprintf("%.0lf(%.2lf%%)", v / 3600, pct);
    case SREPORT_MINS:
    default:
        return xasprintf("%.0lf", v / 60);
    }
}

/* ---- fields ---- */

enum kind {
    K_CLUSTER, K_TRES_NAME, K_TRES_COUNT, K_ACCOUNT, K_LOGIN, K_PROPER,
    K_ENERGY, /* usage kinds from here on */
    K_ALLOC, K_DOWN, K_PDOWN, K_IDLE, K_PLANNED, K_OVER, K_REPORTED, K_USED,
};

struct field {
    const char *name;
    int min;
    const char *title;
    int width, per_width; /* per_width: with the "Per" formats */
    enum kind kind;
};

static const struct field cluster_fields[] = {
    {"Accounts", 2, "Account", 15, 15, K_ACCOUNT},
    {"allocated", 2, "Allocated", 12, 20, K_ALLOC},
    {"Cluster", 2, "Cluster", 9, 9, K_CLUSTER},
    {"down", 1, "Down", 10, 18, K_DOWN},
    {"idle", 1, "Idle", 12, 20, K_IDLE},
    {"Login", 1, "Login", 9, 9, K_LOGIN},
    {"overcommitted", 1, "Over Comm", 9, 18, K_OVER},
    {"PlannedDown", 2, "PLND Down", 10, 18, K_PDOWN},
    {"Proper", 2, "Proper Name", 15, 15, K_PROPER},
    {"reported", 3, "Reported", 12, 20, K_REPORTED},
    {"reserved", 3, "Planned", 9, 18, K_PLANNED},
    {"planned", 4, "Planned", 9, 18, K_PLANNED},
    {"TresCount", 5, "TRES Count", 10, 10, K_TRES_COUNT},
    {"cpucount", 2, "TRES Count", 10, 10, K_TRES_COUNT},
    {"count", 2, "TRES Count", 10, 10, K_TRES_COUNT},
    {"TresName", 5, "TRES Name", 14, 14, K_TRES_NAME},
    {"Used", 1, "Used", 10, 18, K_USED},
    {"Energy", 1, "Energy", 10, 18, K_ENERGY},
    {NULL, 0, NULL, 0, 0, 0},
};

static const struct field user_fields[] = {
    {"Accounts", 1, "Account", 15, 15, K_ACCOUNT},
    {"Cluster", 1, "Cluster", 9, 9, K_CLUSTER},
    {"Energy", 1, "Energy", 10, 18, K_ENERGY},
    {"Login", 1, "Login", 9, 9, K_LOGIN},
    {"Proper", 1, "Proper Name", 15, 15, K_PROPER},
    {"TresName", 5, "TRES Name", 14, 14, K_TRES_NAME},
    {"Used", 1, "Used", 10, 18, K_USED},
    {NULL, 0, NULL, 0, 0, 0},
};

struct column {
    const struct field *f;
    int width;
    bool fixed; /* Name%W given */
};

static bool per_format(enum sreport_time t)
{
    return t == SREPORT_SECS_PER || t == SREPORT_MINS_PER
           || t == SREPORT_HOURS_PER;
}

static int parse_format(const char *format, const struct field *table,
                        const struct sreport_out *o, struct column *cols,
                        size_t max, size_t *n, drv_error_t *error)
{
    char *list = xstrdup(format), *tok, *save = NULL;

    *n = 0;
    for (tok = strtok_r(list, ",", &save); tok && *n < max;
         tok = strtok_r(NULL, ",", &save)) {
        char *pct = strchr(tok, '%');
        const struct field *f;
        int w = pct ? atoi(pct + 1) : 0;

        if (pct)
            *pct = '\0';
        for (f = table; f->name && !matches(f->name, tok, f->min); f++)
            ;
        if (!f->name) {
            errno = EINVAL;
            errprintf(error, " Unknown field '%s'", tok);
            free(list);
            return -1;
        }
        cols[*n] = (struct column){f, w ? w : (per_format(o->time)
                                                   ? f->per_width
                                                   : f->width),
                                   w != 0};
        (*n)++;
    }
    free(list);
    return 0;
}

/* ---- lines ---- */

struct line {
    json_t *cluster, *row; /* row: NULL for cluster utilization */
    const char *tres;
    int64_t secs;          /* the window */
};

static int64_t tres_val(json_t *obj, const char *key, const char *tres)
{
    return json_integer_value(json_object_get(json_object_get(obj, key),
                                              tres));
}

static const char *cluster_key(enum kind k)
{
    switch (k) {
    case K_ALLOC: return "allocated";
    case K_DOWN: return "down";
    case K_PDOWN: return "planned_down";
    case K_IDLE: return "idle";
    case K_PLANNED: return "planned";
    case K_OVER: return "overcommitted";
    default: return "reported";
    }
}

/* The seconds a usage cell shows, and what its percentage is of. */
static int64_t usage_of(const struct line *l, enum kind k, int64_t *total)
{
    int64_t rep = tres_val(l->cluster, "reported", l->tres);

    *total = rep;
    if (k == K_ENERGY)
        return *total = 0;
    if (k == K_USED)
        return tres_val(l->row, "used", l->tres);
    if (k == K_REPORTED)
        *total = l->secs * tres_val(l->cluster, "count", l->tres);
    return tres_val(l->cluster, cluster_key(k), l->tres);
}

static char *proper_name(const char *user)
{
    struct passwd *pw = user && user[0] ? getpwnam(user) : NULL;
    char *s, *comma;

    if (!pw || !pw->pw_gecos)
        return NULL;
    s = xstrdup(pw->pw_gecos);
    if ((comma = strchr(s, ',')))
        *comma = '\0';
    return s;
}

static char *accounts_of(json_t *row)
{
    json_t *list = json_object_get(row, "accounts"), *v;
    char *s = NULL, *next;
    size_t i;

    if (!list)
        return xstrdup(json_string_value(json_object_get(row, "account")));
    json_array_foreach(list, i, v) {
        next = xasprintf("%s%s%s", s ? s : "", s ? ", " : "",
                         json_string_value(v));
        free(s);
        s = next;
    }
    return s;
}

/* A cell's text (NULL: empty). Caller frees. */
static char *cell(const struct line *l, enum kind k,
                  const struct sreport_out *o)
{
    const char *user;
    int64_t total, v;

    switch (k) {
    case K_CLUSTER:
        return xstrdup(json_string_value(json_object_get(l->cluster,
                                                         "cluster")));
    case K_TRES_NAME:
        return xstrdup(l->tres);
    case K_TRES_COUNT:
        return xasprintf("%lld", (long long)tres_val(l->cluster, "count",
                                                     l->tres));
    case K_ACCOUNT:
        return l->row ? accounts_of(l->row) : NULL;
    case K_LOGIN:
    case K_PROPER:
        user = l->row ? json_string_value(json_object_get(l->row, "user"))
                      : NULL;
        if (!user || !user[0])
            return NULL;
        return k == K_LOGIN ? xstrdup(user) : proper_name(user);
    default:
        v = usage_of(l, k, &total);
        return sreport_time_str(o->time, (uint64_t)v, (uint64_t)total);
    }
}

/* Slurm's sreport_set_usage_col_width(): 8 columns below 10^8 s, one
 * more per digit, 9 more for the "Per" formats. */
static int usage_width(int64_t secs, enum sreport_time t)
{
    int w = 8;

    for (int64_t order = 100000000; secs >= order && w < 26; order *= 10)
        w++;
    return per_format(t) ? w + 9 : w;
}

/* The title line(s): print_fields.h. */
static void put_titles(struct fmt_buf *out, const struct column *cols,
                       size_t n, const struct sreport_out *o)
{
    const char **titles = xzalloc((n + 1) * sizeof(*titles));
    int *widths = xzalloc((n + 1) * sizeof(*widths));

    for (size_t i = 0; i < n; i++) {
        titles[i] = cols[i].f->title;
        widths[i] = cols[i].width;
    }
    pf_titles(out, (enum pf_layout)o->parsable, NULL, titles, widths, n);
    free(titles);
    free(widths);
}

/* ---- the report ---- */

static const char rule[] = "----------------------------------------"
                           "----------------------------------------\n";

static void put_block(struct fmt_buf *out, const char *report, json_t *ans,
                      const struct sreport_out *o)
{
    time_t start = (time_t)json_integer_value(json_object_get(ans, "start"));
    time_t end = (time_t)json_integer_value(json_object_get(ans, "end"));
    char s[32], e[32];
    int secs = (int)(end - start);

    timefmt_stamp(start, 0, s, sizeof(s));
    timefmt_stamp(end - 1, 0, e, sizeof(e));
    fmt_buf_puts(out, rule);
    if (!strcmp(report, "cluster_utilization"))
        fmt_buf_printf(out, "Cluster Utilization %s - %s\n", s, e);
    else if (!strcmp(report, "account_utilization_by_user"))
        fmt_buf_printf(out, "Cluster/Account/User Utilization %s - %s "
                       "(%d secs)\n", s, e, secs);
    else if (o->top_count > 0)
        fmt_buf_printf(out, "Top %lld Users %s - %s (%d secs)\n",
                       (long long)o->top_count, s, e, secs);
    else
        fmt_buf_printf(out, "Top ALL Users %s - %s (%d secs)\n", s, e, secs);
    if (o->time == SREPORT_PERCENT)
        fmt_buf_printf(out, "Usage reported in %s\n",
                       sreport_time_name(o->time));
    else
        fmt_buf_printf(out, "Usage reported in %s %s\n",
                       o->tres_given ? "TRES" : "CPU",
                       sreport_time_name(o->time));
    fmt_buf_puts(out, rule);
}

static const char *default_format(const char *report, bool tres)
{
    if (!strcmp(report, "cluster_utilization"))
        return tres ? "Cl,TresName,al,d,planned,i,res,rep"
                    : "Cl,al,d,planned,i,res,rep";
    if (!strcmp(report, "account_utilization_by_user"))
        return tres ? "Cluster,Ac,Login,Proper,TresName,Used"
                    : "Cluster,Ac,Login,Proper,Used,Energy";
    return tres ? "Cl,L,P,A,TresName,Used" : "Cl,L,P,A,U,Energy";
}

/* Every (row, TRES) line of the answer.  Caller frees the array. */
static struct line *collect(json_t *ans, const struct sreport_out *o,
                            bool rows, size_t *n)
{
    json_t *clusters = json_object_get(ans, "clusters"), *c, *r;
    int64_t secs = json_integer_value(json_object_get(ans, "end"))
                   - json_integer_value(json_object_get(ans, "start"));
    struct line *v = NULL;
    size_t i, j, cap = 0;

    *n = 0;
    json_array_foreach(clusters, i, c) {
        json_t *list = rows ? json_object_get(c, "rows") : NULL;
        size_t count = rows ? json_array_size(list) : 1;
        for (j = 0; j < count; j++) {
            r = rows ? json_array_get(list, j) : NULL;
            for (size_t t = 0; t < o->ntres; t++) {
                if (*n == cap) {
                    cap = cap ? cap * 2 : 16;
                    v = xrealloc(v, cap * sizeof(*v));
                }
                v[(*n)++] = (struct line){c, r, o->tres[t], secs};
            }
        }
    }
    return v;
}

int sreport_print(struct fmt_buf *out, json_t *ans, const char *format,
                  const struct sreport_out *o, drv_error_t *error)
{
    const char *report = json_string_value(json_object_get(ans, "report"));
    bool users = report && !strcmp(report, "user_topusage");
    struct column cols[32];
    struct line *lines;
    size_t n, nl;

    if (!report)
        report = "cluster_utilization";
    if (parse_format(format ? format : default_format(report, o->tres_given),
                     users ? user_fields : cluster_fields, o, cols, 32, &n,
                     error) < 0)
        return -1;
    lines = collect(ans, o, strcmp(report, "cluster_utilization") != 0, &nl);
    for (size_t i = 0; i < n; i++) {
        int64_t max = 0, total;
        if (cols[i].fixed || cols[i].f->kind < K_ENERGY)
            continue;
        for (size_t l = 0; l < nl; l++) {
            int64_t v = usage_of(&lines[l], cols[i].f->kind, &total);
            if (v > max)
                max = v;
        }
        cols[i].width = usage_width(max, o->time);
    }
    if (!o->noheader) {
        put_block(out, report, ans, o);
        put_titles(out, cols, n, o);
    }
    for (size_t l = 0; l < nl; l++) {
        for (size_t i = 0; i < n; i++) {
            char *s = cell(&lines[l], cols[i].f->kind, o);
            pf_cell(out, (enum pf_layout)o->parsable, NULL, s, cols[i].width,
                    false, i + 1 == n);
            free(s);
        }
        fmt_buf_puts(out, "\n");
    }
    free(lines);
    return 0;
}
