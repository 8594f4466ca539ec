/* SPDX-License-Identifier: Apache-2.0
 *
 * limits.c - association, QOS and user tables from acct_assoc_list, and
 * resolving a submission's account and QOS
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/sizefmt.h"
#include "common/xalloc.h"
#include "sched/limits_private.h"

#define KEY_SEP "\x1f"

static const char *const tres_names[TRES_COUNT] = {
    [TRES_CPU] = "cpu", [TRES_MEM] = "mem", [TRES_NODE] = "node",
    [TRES_GPU] = "gres/gpu",
};

static void tres_none(struct limits_tres *t)
{
    for (int i = 0; i < TRES_COUNT; i++)
        t->v[i] = -1;
}

static int tres_entry(const char *name, size_t n, const char *value,
                      struct limits_tres *out, drv_error_t *error)
{
    uint64_t v;
    char *end;

    for (int i = 0; i < TRES_COUNT; i++) {
        if (strlen(tres_names[i]) != n || strncmp(name, tres_names[i], n))
            continue;
        if (i == TRES_MEM) {
            if (sizefmt_parse_mib(value, &v, error) < 0) {
                errno = EINVAL;
                return -1;
            }
        } else {
            errno = 0;
            v = strtoull(value, &end, 10);
            if (errno || end == value || *end || value[0] == '-') {
                errno = EINVAL;
                return errprintf(error, "TRES %.*s=%s: not a count", (int)n,
                                 name, value);
            }
        }
        out->v[i] = (int64_t)v;
    }
    return 0;
}

int limits_tres_parse(const char *s, struct limits_tres *out,
                      drv_error_t *error)
{
    char *copy = xstrdup(s ? s : ""), *save = NULL, *tok;
    int rc = 0;

    tres_none(out);
    for (tok = strtok_r(copy, ",", &save); tok && !rc;
         tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) {
            errno = EINVAL;
            rc = errprintf(error, "TRES entry '%s' lacks '='", tok);
            break;
        }
        rc = tres_entry(tok, (size_t)(eq - tok), eq + 1, out, error);
    }
    free(copy);
    return rc;
}

static const char *str_or(json_t *o, const char *key, const char *dflt)
{
    const char *s = json_string_value(json_object_get(o, key));

    return s ? s : dflt;
}

static int64_t int_or(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    return json_is_integer(v) ? (int64_t)json_integer_value(v) : -1;
}

/* The limits shared by QOS and association objects. */
static int set_parse(json_t *o, struct limits_set *s, bool qos,
                     drv_error_t *error)
{
    s->grp_jobs = int_or(o, "grp_jobs");
    s->grp_submit_jobs = int_or(o, "grp_submit_jobs");
    s->max_jobs = int_or(o, qos ? "max_jobs_per_user" : "max_jobs");
    s->max_submit_jobs =
        int_or(o, qos ? "max_submit_jobs_per_user" : "max_submit_jobs");
    s->max_wall_min = int_or(o, "max_wall_min");
    tres_none(&s->max_tres_per_user);
    if (limits_tres_parse(str_or(o, "grp_tres", ""), &s->grp_tres, error) < 0
        || limits_tres_parse(str_or(o, "max_tres_per_job", ""),
                             &s->max_tres_per_job, error) < 0
        || (qos && limits_tres_parse(str_or(o, "max_tres_per_user", ""),
                                     &s->max_tres_per_user, error) < 0))
        return -1;
    return 0;
}

static bool other_cluster(json_t *o, const char *cluster)
{
    const char *c = json_string_value(json_object_get(o, "cluster"));

    return cluster && c && *c && strcmp(c, cluster);
}

static char **name_list(json_t *a);

static int add_qos(limits_table_t *t, json_t *o, drv_error_t *error)
{
    const char *name = str_or(o, "name", NULL);
    struct limits_qos *q;
    drv_error_t e = {{0}};

    if (!name || !*name) {
        errno = EINVAL;
        return errprintf(error, "a QOS without a name");
    }
    if (limits__qos_find(t, name))
        return 0;
    q = xzalloc(sizeof(*q));
    q->name = xstrdup(name);
    q->priority = (uint32_t)(int_or(o, "priority") > 0
                             ? int_or(o, "priority") : 0);
    q->usage_factor = json_is_number(json_object_get(o, "usage_factor"))
                          ? json_number_value(json_object_get(o, "usage_factor"))
                          : 1.0;
    if (!(q->usage_factor >= 0))
        q->usage_factor = 1.0;
    q->preempt = name_list(json_object_get(o, "preempt"));
    q->preempt_mode = xstrdup(str_or(o, "preempt_mode", "cluster"));
    q->grace_time_s = int_or(o, "grace_time_s") > 0
                          ? int_or(o, "grace_time_s") : 0;
    HASH_ADD_KEYPTR(hh, t->qos, q->name, strlen(q->name), q);
    if (set_parse(o, &q->lim, true, &e) < 0)
        return errprintf(error, "QOS %s: %s", name, e.text);
    return 0;
}

static char *assoc_key(const char *user, const char *account,
                       const char *partition)
{
    return xasprintf("%s" KEY_SEP "%s" KEY_SEP "%s", user, account, partition);
}

static char **name_list(json_t *a)
{
    size_t i, n = json_array_size(a), k = 0;
    char **out = xzalloc(sizeof(*out) * (n + 1));
    json_t *v;

    json_array_foreach(a, i, v)
        if (json_is_string(v))
            out[k++] = xstrdup(json_string_value(v));
    return out;
}

static int add_assoc(limits_table_t *t, json_t *o, drv_error_t *error)
{
    const char *acct = str_or(o, "account", NULL);
    struct limits_assoc *a;
    drv_error_t e = {{0}};
    char *key;

    if (!acct || !*acct) {
        errno = EINVAL;
        return errprintf(error, "an association without an account");
    }
    key = assoc_key(str_or(o, "user", ""), acct, str_or(o, "partition", ""));
    HASH_FIND_STR(t->assocs, key, a);
    if (a) {
        free(key);
        return 0;
    }
    a = xzalloc(sizeof(*a));
    a->key = key;
    a->account = xstrdup(acct);
    a->user = xstrdup(str_or(o, "user", ""));
    a->partition = xstrdup(str_or(o, "partition", ""));
    a->parent_account = xstrdup(str_or(o, "parent_account", ""));
    a->def_qos = xstrdup(str_or(o, "def_qos", ""));
    a->qos = name_list(json_object_get(o, "qos"));
    a->shares = json_is_integer(json_object_get(o, "shares"))
                    && int_or(o, "shares") >= 0
                    ? (uint32_t)int_or(o, "shares") : 1;
    a->priority = (uint32_t)(int_or(o, "priority") > 0
                             ? int_or(o, "priority") : 0);
    HASH_ADD_KEYPTR(hh, t->assocs, a->key, strlen(a->key), a);
    if (set_parse(o, &a->lim, false, &e) < 0)
        return errprintf(error, "association %s/%s: %s", acct, a->user,
                         e.text);
    return 0;
}

static void add_user(limits_table_t *t, json_t *o)
{
    const char *name = str_or(o, "name", NULL);
    struct limits_user *u;

    if (!name || !*name)
        return;
    HASH_FIND_STR(t->users, name, u);
    if (u)
        return;
    u = xzalloc(sizeof(*u));
    u->name = xstrdup(name);
    u->default_account = xstrdup(str_or(o, "default_account", ""));
    HASH_ADD_KEYPTR(hh, t->users, u->name, strlen(u->name), u);
}

/* A user's association hangs under its account's own association; an
 * account's under its parent account's. */
static void link_parents(limits_table_t *t)
{
    struct limits_assoc *a, *tmp;

    HASH_ITER(hh, t->assocs, a, tmp) {
        if (*a->user || *a->partition)
            a->parent = limits__assoc_find(t, "", a->account, "");
        else if (*a->parent_account)
            a->parent = limits__assoc_find(t, "", a->parent_account, "");
        if (a->parent == a)
            a->parent = NULL;
    }
}

static int parse_lists(limits_table_t *t, json_t *body, const char *cluster,
                       drv_error_t *error)
{
    json_t *v;
    size_t i;

    json_array_foreach(json_object_get(body, "qos"), i, v)
        if (add_qos(t, v, error) < 0)
            return -1;
    json_array_foreach(json_object_get(body, "assocs"), i, v)
        if (!other_cluster(v, cluster) && add_assoc(t, v, error) < 0)
            return -1;
    json_array_foreach(json_object_get(body, "users"), i, v)
        add_user(t, v);
    return 0;
}

limits_table_t *limits_table_parse(json_t *body, const char *cluster,
                                   drv_error_t *error)
{
    limits_table_t *t;

    if (!json_is_object(body) || !json_is_integer(json_object_get(body, "version"))
        || !json_is_array(json_object_get(body, "assocs"))) {
        errno = EINVAL;
        errprintf(error, "not an acct_assoc_list answer (version, assocs)");
        return NULL;
    }
    t = xzalloc(sizeof(*t));
    t->version = json_integer_value(json_object_get(body, "version"));
    if (parse_lists(t, body, cluster, error) < 0) {
        limits_table_destroy(t);
        errno = EINVAL;
        return NULL;
    }
    link_parents(t);
    return t;
}

int64_t limits_table_version(const limits_table_t *t)
{
    return t->version;
}

static void qos_users_free(struct limits_qos *q)
{
    struct limits_qos_user *u, *tmp;

    HASH_ITER(hh, q->users, u, tmp) {
        HASH_DEL(q->users, u);
        free(u->user);
        free(u);
    }
}

static void assoc_free(struct limits_assoc *a)
{
    for (char **q = a->qos; q && *q; q++)
        free(*q);
    free(a->qos);
    free(a->key);
    free(a->account);
    free(a->user);
    free(a->partition);
    free(a->parent_account);
    free(a->def_qos);
    free(a);
}

void limits_table_destroy(limits_table_t *t)
{
    int saved = errno;
    struct limits_qos *q, *qt;
    struct limits_assoc *a, *at;
    struct limits_user *u, *ut;

    if (!t)
        return;
    HASH_ITER(hh, t->qos, q, qt) {
        HASH_DEL(t->qos, q);
        qos_users_free(q);
        for (char **x = q->preempt; x && *x; x++)
            free(*x);
        free(q->preempt);
        free(q->preempt_mode);
        free(q->name);
        free(q);
    }
    HASH_ITER(hh, t->assocs, a, at) {
        HASH_DEL(t->assocs, a);
        assoc_free(a);
    }
    HASH_ITER(hh, t->users, u, ut) {
        HASH_DEL(t->users, u);
        free(u->name);
        free(u->default_account);
        free(u);
    }
    free(t);
    errno = saved;
}

/* Look up one key; on the stack when it fits (a pass looks up once per
 * job). */
static struct limits_assoc *assoc_get(const limits_table_t *t,
                                      const char *user, const char *account,
                                      const char *partition)
{
    struct limits_assoc *a = NULL;
    char buf[256], *key = buf;
    int n = snprintf(buf, sizeof(buf), "%s" KEY_SEP "%s" KEY_SEP "%s", user,
                     account, partition);

    if (n < 0)
        return NULL;
    if ((size_t)n >= sizeof(buf))
        key = assoc_key(user, account, partition);
    HASH_FIND_STR(t->assocs, key, a);
    if (key != buf)
        free(key);
    return a;
}

struct limits_assoc *limits__assoc_find(const limits_table_t *t,
                                        const char *user, const char *account,
                                        const char *partition)
{
    struct limits_assoc *a = NULL;

    if (partition && *partition)
        a = assoc_get(t, user, account, partition);
    return a ? a : assoc_get(t, user, account, "");
}

struct limits_qos *limits__qos_find(const limits_table_t *t, const char *name)
{
    struct limits_qos *q = NULL;

    if (name)
        HASH_FIND_STR(t->qos, name, q);
    return q;
}

static bool qos_allowed(const struct limits_assoc *a, const char *qos)
{
    for (char **q = a->qos; q && *q; q++)
        if (!strcmp(*q, qos))
            return true;
    return false;
}

/* The QOS: -q, else the association's default, else "normal". */
static int resolve_qos(const limits_table_t *t, const struct limits_assoc *a,
                       const char *qos, unsigned flags,
                       struct limits_resolved *out, drv_error_t *error)
{
    const struct limits_qos *q;

    if (!qos || !*qos)
        qos = a && *a->def_qos ? a->def_qos : "normal";
    q = limits__qos_find(t, qos);
    if (!(flags & LIMITS_ENFORCE_QOS)) {
        out->qos = q ? q->name : NULL;
        return 0;
    }
    if (!q || (a && !qos_allowed(a, qos))) {
        errno = EDRV_INVALID_QOS;
        return errprintf(error, "invalid qos '%s'", qos);
    }
    out->qos = q->name;
    return 0;
}

int limits_resolve(const limits_table_t *t, const char *user,
                   const char *account, const char *partition,
                   const char *qos, unsigned flags, struct limits_resolved *out,
                   drv_error_t *error)
{
    const struct limits_assoc *a = NULL;
    struct limits_user *u = NULL;

    *out = (struct limits_resolved){ 0 };
    if (!account || !*account) {
        HASH_FIND_STR(t->users, user, u);
        account = u && *u->default_account ? u->default_account : NULL;
    }
    if (account)
        a = limits__assoc_find(t, user, account, partition);
    if (!a && (flags & LIMITS_ENFORCE_ASSOCS)) {
        errno = EDRV_INVALID_ACCOUNT;
        return errprintf(error, "invalid account or account/partition "
                         "combination for user %s, account '%s', "
                         "partition '%s'", user, account ? account : "",
                         partition ? partition : "");
    }
    out->account = a ? a->account : account;
    return resolve_qos(t, a, qos, flags, out, error);
}

void limits_assoc_each(const limits_table_t *t,
                       void (*fn)(void *arg,
                                  const struct limits_assoc_info *info),
                       void *arg)
{
    const struct limits_assoc *a, *tmp;

    HASH_ITER(hh, t->assocs, a, tmp) {
        struct limits_assoc_info info = {
            .account = a->account, .user = a->user,
            .partition = a->partition, .parent_account = a->parent_account,
            .shares = a->shares, .priority = a->priority,
        };
        fn(arg, &info);
    }
}

uint32_t limits_assoc_priority(const limits_table_t *t, const char *user,
                               const char *account, const char *partition)
{
    const struct limits_assoc *a;

    if (!t || !user || !account)
        return 0;
    a = limits__assoc_find(t, user, account, partition ? partition : "");
    return a ? a->priority : 0;
}

uint32_t limits_assoc_priority_max(const limits_table_t *t)
{
    const struct limits_assoc *a, *tmp;
    uint32_t max = 0;

    HASH_ITER(hh, t->assocs, a, tmp)
        if (a->priority > max)
            max = a->priority;
    return max;
}

uint32_t limits_qos_priority(const limits_table_t *t, const char *name)
{
    const struct limits_qos *q = t && name ? limits__qos_find(t, name) : NULL;

    return q ? q->priority : 0;
}

double limits_qos_usage_factor(const limits_table_t *t, const char *name)
{
    const struct limits_qos *q = t && name ? limits__qos_find(t, name) : NULL;

    return q ? q->usage_factor : 1.0;
}

uint32_t limits_qos_priority_max(const limits_table_t *t)
{
    const struct limits_qos *q, *tmp;
    uint32_t max = 0;

    HASH_ITER(hh, t->qos, q, tmp)
        if (q->priority > max)
            max = q->priority;
    return max;
}

bool limits_qos_preempts(const limits_table_t *t, const char *qos,
                         const char *victim)
{
    const struct limits_qos *q = t && qos ? limits__qos_find(t, qos) : NULL;

    for (char **x = q ? q->preempt : NULL; x && *x && victim; x++)
        if (!strcmp(*x, victim))
            return true;
    return false;
}

const char *limits_qos_preempt_mode(const limits_table_t *t, const char *qos)
{
    const struct limits_qos *q = t && qos ? limits__qos_find(t, qos) : NULL;

    return q ? q->preempt_mode : "cluster";
}

int64_t limits_qos_grace_s(const limits_table_t *t, const char *qos)
{
    const struct limits_qos *q = t && qos ? limits__qos_find(t, qos) : NULL;

    return q ? q->grace_time_s : 0;
}
