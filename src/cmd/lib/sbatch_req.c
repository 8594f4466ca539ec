/* SPDX-License-Identifier: Apache-2.0
 *
 * sbatch_req.c - -w, -x, -C, --begin, --time-min, --signal, --open-mode,
 * --uid/--gid, --gpus-per-task, --cpus-per-gpu, --mem-per-gpu
 */
#include <ctype.h>
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd/lib/sbatch_req.h"
#include "common/signame.h"
#include "common/xalloc.h"
#include "common/hostlist.h"
#include "common/sizefmt.h"
#include "common/timefmt.h"

/* "+N[units]" after "now": seconds added, or -1. */
static int64_t parse_offset(const char *s)
{
    static const struct { const char *name; int64_t mult; } units[] = {
        {"seconds", 1}, {"minutes", 60}, {"hours", 3600},
        {"days", 86400}, {"weeks", 7 * 86400},
    };
    char *end;
    long long n;

    if (*s != '+' || !isdigit((unsigned char)s[1]))
        return -1;
    n = strtoll(s + 1, &end, 10);
    if (!*end)
        return n;
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
        if (!strncasecmp(end, units[i].name, strlen(end)))
            return n * units[i].mult;
    return -1;
}

/* An "AM"/"PM" suffix (after optional spaces) at 's' on hour *h (1-12):
 * *h made 0-23.  Returns the bytes taken, 0 when there is none, -1 for
 * an hour out of 1-12 with one. */
static int am_pm(const char *s, int *h)
{
    int n = 0;

    while (s[n] == ' ')
        n++;
    if (strncasecmp(s + n, "am", 2) && strncasecmp(s + n, "pm", 2))
        return 0;
    if (*h < 1 || *h > 12)
        return -1;
    *h = *h % 12 + (tolower((unsigned char)s[n]) == 'p' ? 12 : 0);
    return n + 2;
}

/* "HH:MM[:SS][ ][AM|PM]" into tm; true if the whole of 's' matched. */
static bool parse_hms(const char *s, struct tm *tm)
{
    int h, m, sec = 0, len = 0, len2 = 0, ampm;

    if (sscanf(s, "%2d:%2d%n", &h, &m, &len) != 2)
        return false;
    if (s[len] == ':') {
        if (sscanf(s + len, ":%2d%n", &sec, &len2) != 1)
            return false;
        len += len2;
    }
    if ((ampm = am_pm(s + len, &h)) < 0)
        return false;
    len += ampm;
    if (s[len] || h > 23 || m > 59 || sec > 59 || h < 0 || m < 0 || sec < 0)
        return false;
    tm->tm_hour = h;
    tm->tm_min = m;
    tm->tm_sec = sec;
    return true;
}

/* A date part: "YYYY-MM-DD", "MM/DD[/YY]", or a word.  On failure *bad
 * is the offset of the bad field (0: the whole word). */
static bool parse_date(const char *s, struct tm *tm, bool *has_time, int *bad)
{
    static const struct { const char *word; int hour; } hours[] = {
        {"noon", 12}, {"elevenses", 11}, {"fika", 15}, {"teatime", 16},
    };
    int y, mo, d, len = 0;

    *has_time = false;
    *bad = 0;
    if (!strcasecmp(s, "today"))
        return true;
    if (!strcasecmp(s, "tomorrow") || !strcasecmp(s, "midnight")) {
        tm->tm_mday++;
        *has_time = tolower((unsigned char)*s) == 'm';
        return true;
    }
    for (size_t i = 0; i < sizeof(hours) / sizeof(hours[0]); i++)
        if (!strcasecmp(s, hours[i].word)) {
            tm->tm_hour = hours[i].hour;
            *has_time = true;
            return true;
        }
    if (strlen(s) == 6 && strspn(s, "0123456789") == 6) { /* MMDDYY */
        sscanf(s, "%2d%2d%2d", &mo, &d, &y);
        tm->tm_year = y + 100;
    } else if (sscanf(s, "%4d-%2d-%2d%n", &y, &mo, &d, &len) == 3 && !s[len]) {
        tm->tm_year = y - 1900;
        *bad = mo < 1 || mo > 12 ? 5 : 8; /* where Slurm's parse stops */
    } else if (sscanf(s, "%2d/%2d/%2d%n", &mo, &d, &y, &len) == 3 && !s[len]) {
        tm->tm_year = y + 100;
    } else if (sscanf(s, "%2d/%2d%n", &mo, &d, &len) == 2 && !s[len]) {
        ;
    } else {
        return false;
    }
    if (mo < 1 || mo > 12 || d < 1 || d > 31)
        return false;
    *bad = 0;
    tm->tm_mon = mo - 1;
    tm->tm_mday = d;
    return true;
}

int sbatch_parse_time(const char *s, time_t now, time_t *out, int *pos)
{
    struct tm tm;
    char date[64];
    const char *t = strchr(s, 'T');
    bool has_time = false, time_only;
    int64_t off;
    int bad = 0;

    *pos = 0;
    if (!strncasecmp(s, "now", 3)) {
        off = s[3] ? parse_offset(s + 3) : 0;
        if (off < 0)
            return *pos = 3, errno = EINVAL, -1;
        *out = now + (time_t)off;
        return 0;
    }
    localtime_r(&now, &tm);
    tm.tm_hour = tm.tm_min = tm.tm_sec = 0;
    tm.tm_isdst = -1;
    time_only = !t && strchr(s, ':');
    if (time_only) {
        if (!parse_hms(s, &tm))
            return errno = EINVAL, -1;
    } else {
        size_t n = t ? (size_t)(t - s) : strlen(s);
        if (n >= sizeof(date))
            return errno = EINVAL, -1;
        memcpy(date, s, n);
        date[n] = '\0';
        if (!parse_date(date, &tm, &has_time, &bad))
            return *pos = bad, errno = EINVAL, -1;
        if (t && !parse_hms(t + 1, &tm))
            return *pos = (int)n + 1, errno = EINVAL, -1;
    }
    *out = mktime(&tm);
    /* A time of day alone ("15:30", "noon") that has passed: tomorrow. */
    if ((time_only || (has_time && !t)) && *out < now) {
        tm.tm_mday++;
        *out = mktime(&tm);
    }
    return *out == (time_t)-1 ? (errno = EINVAL, -1) : 0;
}

int sbatch_parse_begin(const char *s, time_t now, time_t *out)
{
    int pos;

    return sbatch_parse_time(s, now, out, &pos);
}

int sbatch_parse_signal(const char *s, int *signo, int *secs, int *batch)
{
    char buf[64], *at;
    long t = 60;

    *batch = 0;
    if ((s[0] == 'B' || s[0] == 'R') && s[1] == ':') {
        *batch = s[0] == 'B';
        s += 2;
    }
    if (strlen(s) >= sizeof(buf))
        return errno = EINVAL, -1;
    strcpy(buf, s);
    if ((at = strchr(buf, '@'))) {
        char *end;
        *at = '\0';
        t = strtol(at + 1, &end, 10);
        if (!at[1] || *end || t < 0 || t > 0xffff)
            return errno = EINVAL, -1;
    }
    if ((*signo = sig_parse(buf)) < 0)
        return errno = EINVAL, -1;
    *secs = (int)t;
    return 0;
}

static int fail(struct sbatch_error *e, const char *text)
{
    e->exit_code = 255;
    e->level = "error";
    snprintf(e->text, sizeof(e->text), "%s", text);
    return -1;
}

/* Slurm's parse_time() prints where a time failed to parse, bare, before
 * the command's own error. */
static int time_fail(struct sbatch_error *e, const char *s, int pos,
                     const char *text)
{
    fprintf(stderr, "Invalid time specification (pos=%d): %s\n", pos, s);
    return fail(e, text);
}

/* Move string 'from' to 'to' in 'desc'. */
static void rename_key(json_t *desc, const char *from, const char *to)
{
    json_t *v = json_object_get(desc, from);

    if (json_is_string(v)) {
        json_object_set(desc, to, v);
        json_object_del(desc, from);
    }
}

static int finish_times(json_t *desc, time_t now, struct sbatch_error *e)
{
    const char *v;
    time_t t;
    int64_t secs;
    int signo, ssecs, batch, pos;

    if ((v = json_string_value(json_object_get(desc, "begin")))) {
        if (sbatch_parse_time(v, now, &t, &pos) < 0)
            return time_fail(e, v, pos, "Invalid --begin specification");
        json_object_set_new(desc, "begin_time", json_integer(t));
        json_object_del(desc, "begin");
    }
    /* --deadline is checked with --begin's syntax and passed on. */
    if ((v = json_string_value(json_object_get(desc, "deadline")))
        && sbatch_parse_time(v, now, &t, &pos) < 0)
        return time_fail(e, v, pos, "Invalid --deadline specification");
    if ((v = json_string_value(json_object_get(desc, "time_min")))) {
        if (timefmt_parse_limit(v, &secs, NULL) < 0)
            return fail(e, "Invalid --time-min specification");
        json_object_set_new(desc, "time_min_s", json_integer(secs));
        json_object_del(desc, "time_min");
    }
    if ((v = json_string_value(json_object_get(desc, "signal")))) {
        if (sbatch_parse_signal(v, &signo, &ssecs, &batch) < 0)
            return fail(e, "Invalid --signal specification");
        json_object_set_new(desc, "signal_num", json_integer(signo));
        json_object_set_new(desc, "signal_secs", json_integer(ssecs));
        json_object_set_new(desc, "signal_batch_only", json_boolean(batch));
        json_object_del(desc, "signal");
    }
    return 0;
}

/* Slurm sizes a job by its -w list when -N and -n leave it open: at
 * least one node, and one task, per listed node. */
static void size_by_nodelist(json_t *desc)
{
    const char *v = json_string_value(json_object_get(desc, "req_nodes"));
    hostlist_t *hl = v ? hostlist_decode(v, NULL) : NULL;
    json_int_t count = hl ? (json_int_t)hostlist_count(hl) : 0;

    hostlist_destroy(hl);
    if (count == 0)
        return;
    if (!json_object_get(desc, "nodes_min")) {
        json_object_set_new(desc, "nodes_min", json_integer(count));
        json_object_set_new(desc, "nodes_max", json_integer(count));
    }
    if (!json_is_true(json_object_get(desc, "ntasks_set"))
        && json_integer_value(json_object_get(desc, "ntasks")) < count)
        json_object_set_new(desc, "ntasks", json_integer(count));
}

/* A name or a number, as Slurm's uid_from_string()/gid_from_string(). */
static int id_from_string(const char *s, bool group, long *id)
{
    char *end;
    long n;

    if (!*s)
        return -1;
    if (group) {
        struct group *gr = getgrnam(s);
        if (gr)
            return *id = (long)gr->gr_gid, 0;
    } else {
        struct passwd *pw = getpwnam(s);
        if (pw)
            return *id = (long)pw->pw_uid, 0;
    }
    n = strtol(s, &end, 10);
    if (*end || n < 0 || n >= 0xfffffffe)
        return -1;
    if (group ? !getgrgid((gid_t)n) : !getpwuid((uid_t)n))
        return -1;
    return *id = n, 0;
}

int sbatch_req_identity(json_t *desc, uid_t caller, struct sbatch_error *e)
{
    static const struct {
        const char *opt, *key, *out, *denied, *invalid;
        bool group;
    } ids[] = {
        {"uid", "uid", "user_id", "--uid only permitted by root user",
         "Invalid --uid specification", false},
        {"gid", "gid", "group_id", "--gid only permitted by root user",
         "Invalid --gid specification", true},
    };

    for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
        const char *v = json_string_value(json_object_get(desc, ids[i].key));
        long id;

        if (!v)
            continue;
        if (caller != 0)
            return fail(e, ids[i].denied);
        if (id_from_string(v, ids[i].group, &id) < 0)
            return fail(e, ids[i].invalid);
        json_object_set_new(desc, ids[i].out, json_integer(id));
        json_object_del(desc, ids[i].key);
    }
    return 0;
}

/* A positive count; 'type' (may be NULL) takes a "type:" prefix. */
static int parse_count(const char *s, char **type, long *n)
{
    const char *colon = type ? strrchr(s, ':') : NULL;
    char *end;

    if (colon) {
        if (colon == s)
            return -1;
        *type = strndup(s, (size_t)(colon - s));
        s = colon + 1;
    }
    *n = strtol(s, &end, 10);
    return !*s || *end || *n <= 0 || *n > 0xffff ? -1 : 0;
}

int sbatch_req_gpu_opts(json_t *desc, struct sbatch_error *e)
{
    const char *v;
    char *type = NULL;
    uint64_t mib;
    long n;

    if ((v = json_string_value(json_object_get(desc, "gpus_per_task")))) {
        int rc = parse_count(v, &type, &n);
        if (type && !json_object_get(desc, "gpu_type"))
            json_object_set_new(desc, "gpu_type", json_string(type));
        free(type);
        if (rc < 0)
            return fail(e, "Invalid --gpus-per-task specification");
        json_object_set_new(desc, "gpus_per_task", json_integer(n));
    }
    if ((v = json_string_value(json_object_get(desc, "cpus_per_gpu")))) {
        if (parse_count(v, NULL, &n) < 0)
            return fail(e, "Invalid --cpus-per-gpu specification");
        json_object_set_new(desc, "cpus_per_gpu", json_integer(n));
    }
    if ((v = json_string_value(json_object_get(desc, "mem_per_gpu")))) {
        if (sizefmt_parse_mib(v, &mib, NULL) < 0)
            return fail(e, "Invalid --mem-per-gpu specification");
        json_object_set_new(desc, "mem_per_gpu_mib",
                            json_integer((json_int_t)mib));
        json_object_del(desc, "mem_per_gpu");
    }
    return 0;
}

int sbatch_req_finish(json_t *desc, time_t now, struct sbatch_error *e)
{
    const char *v;

    rename_key(desc, "nodelist", "req_nodes");
    size_by_nodelist(desc);
    rename_key(desc, "exclude", "exc_nodes");
    rename_key(desc, "constraint", "features");
    if ((v = json_string_value(json_object_get(desc, "open_mode")))) {
        if (*v == 'a' || *v == 'A')
            json_object_set_new(desc, "open_mode", json_string("append"));
        else if (*v == 't' || *v == 'T')
            json_object_set_new(desc, "open_mode", json_string("truncate"));
        else
            return fail(e, "Invalid --open-mode specification");
    }
    if (json_object_get(desc, "gpus_per_task")
        && !json_object_get(desc, "gpus")
        && !json_is_true(json_object_get(desc, "ntasks_set"))) {
        fail(e, "Failed to validate job spec. --gpus-per-task used without "
                "either --gpus or -n/--ntasks is not allowed.\n"
                "Invalid generic resource (gres) specification");
        e->exit_code = 1; /* Slurm's client-side GRES validation */
        return -1;
    }
    if (sbatch_req_identity(desc, getuid(), e) < 0
        || sbatch_req_gpu_opts(desc, e) < 0)
        return -1;
    return finish_times(desc, now, e);
}

int sbatch_parse_past(const char *s, time_t now, time_t *out, int *pos)
{
    char *plus = NULL;
    time_t t;

    if (!strncasecmp(s, "now-", 4)) {
        plus = xstrdup(s);
        plus[3] = '+';
    }
    if (sbatch_parse_time(plus ? plus : s, now, &t, pos) < 0) {
        free(plus);
        return -1;
    }
    if (plus) {
        free(plus);
        *out = now - (t - now);
        return 0;
    }
    if (strncasecmp(s, "now", 3) && !strchr(s, 'T') && strchr(s, ':')
        && !strchr(s, '-') && !strchr(s, '/')) {
        while (t > now)
            t -= 86400;
    }
    *out = t;
    return 0;
}
