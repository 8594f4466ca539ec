/* SPDX-License-Identifier: Apache-2.0
 *
 * assoc_mod_util.c - helpers of acct_modify's operations
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "dbd/assoc_private.h"
#include "dbd/assoc_store.h"
#include "dbd/assoc_mod_private.h"
#include "dbd/assoc_value.h"


/* Keys of "set" that are not association or QOS limits. */
static const char *const entity_keys[] = {
    "name", "names", "parent", "description", "organization", "cluster",
    "clusters", "account", "accounts", "defaultaccount", "adminlevel",
    "partition", NULL,
};

bool mod__is_entity_key(const char *key, bool qos)
{
    if (qos && !strcasecmp(key, "description"))
        return false;
    for (size_t i = 0; entity_keys[i]; i++) {
        if (!strcasecmp(entity_keys[i], key))
            return true;
    }
    return false;
}

const char *mod__admin_level(const char *s)
{
    static const char *const levels[] = {"None", "Operator", "Administrator",
                                         NULL};

    if (!s)
        return NULL;
    if (!strcasecmp(s, "admin"))
        return "Administrator";
    if (!strcasecmp(s, "oper"))
        return "Operator";
    for (size_t i = 0; levels[i]; i++) {
        if (!strcasecmp(s, levels[i]))
            return levels[i];
    }
    return NULL;
}

int mod__fail(struct mod *m, const char *fmt, ...)
{
    char text[512];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    errno = EINVAL;
    errprintf(m->error, "%s", text);
    errno = EINVAL;
    return -1;
}

void mod__line(struct mod *m, const char *fmt, ...)
{
    va_list ap;
    char *s;

    va_start(ap, fmt);
    if (vasprintf(&s, fmt, ap) < 0)
        s = NULL;
    va_end(ap);
    json_array_append_new(m->changed, json_string(s ? s : ""));
    free(s);
}

/* A list from "a,b", ["a","b"] or a number, lower-cased unless 'keep'. */
json_t *mod__to_list(const json_t *v, bool keep)
{
    json_t *out = json_array(), *x;
    char buf[32];
    size_t i;

    if (json_is_array(v)) {
        json_array_foreach(v, i, x) {
            json_t *sub = mod__to_list(x, keep);
            json_array_extend(out, sub);
            json_decref(sub);
        }
        return out;
    }
    for (const char *p = assoc_value_text(v, buf, sizeof(buf)); p && *p;) {
        size_t len = strcspn(p, ",");
        char *s = xasprintf("%.*s", (int)len, p);
        char *lc = keep ? xstrdup(s) : assoc__lower(s);
        if (lc[0])
            json_array_append_new(out, json_string(lc));
        free(s);
        free(lc);
        p += len + (p[len] == ',');
    }
    return out;
}

bool mod__in_list(const json_t *list, const char *s)
{
    json_t *v;
    size_t i;

    json_array_foreach(list, i, v) {
        if (!strcmp(json_string_value(v), s))
            return true;
    }
    return false;
}

/* where[key] (or its plural) as a list, or NULL when not given. */
json_t *mod__wlist(const json_t *obj, const char *key, bool keep)
{
    char plural[64];
    const json_t *v = json_object_get(obj, key);

    snprintf(plural, sizeof(plural), "%ss", key);
    if (!v)
        v = json_object_get(obj, plural);
    return v ? mod__to_list(v, keep) : NULL;
}

const char *mod__sval(const json_t *obj, const char *key, char *buf,
                        size_t size)
{
    return assoc_value_text(json_object_get(obj, key), buf, size);
}

static struct db_param param_of(const json_t *v, char **tmp)
{
    *tmp = NULL;
    if (json_is_integer(v))
        return DB_INT(json_integer_value(v));
    if (json_is_string(v))
        return DB_TEXT(json_string_value(v));
    if (json_is_array(v))
        return DB_TEXT(*tmp = assoc__join(v));
    if (json_is_real(v))
        return DB_TEXT(*tmp = xasprintf("%f", json_real_value(v)));
    return DB_NULL;
}

int mod__update_col(struct mod *m, const char *table, json_int_t id,
                      const char *col, const json_t *v)
{
    static const struct {
        const char *json, *sql;
    } renames[] = {{"user", "user_name"}, {"partition", "part_name"}};
    char *tmp, *sql;
    struct db_param p[2];
    int rc;

    for (size_t i = 0; i < 2; i++) {
        if (!strcmp(col, renames[i].json))
            col = renames[i].sql;
    }
    p[0] = param_of(v, &tmp);
    p[1] = DB_INT(id);
    sql = xasprintf("UPDATE %s SET %s = ? WHERE id = ?", table, col);
    rc = db_exec(m->db, sql, p, 2, m->error);
    free(sql);
    free(tmp);
    return rc;
}

/* Apply the limit keys of m->set to 'row' (raw, with "id") of 'table'.
 * Returns 1 when something changed, 0 when not, -1 on error.
 */
int mod__apply_limits(struct mod *m, const char *table, json_t *row)
{
    bool qos = !strcmp(table, "qos");
    const char *key;
    json_t *v;
    int changed = 0;

    json_object_foreach(m->set, key, v) {
        const struct assoc_key *k;
        const char *col, *text;
        char buf[64];
        json_t *nv;

        if (mod__is_entity_key(key, qos))
            continue;
        if (!(k = assoc_key_find(key))
            || !(col = qos ? k->qos_col : k->assoc_col))
            return mod__fail(m, " Unknown option: %s", key);
        if (!(text = assoc_value_text(v, buf, sizeof(buf))))
            return mod__fail(m, " Bad value for %s", key);
        if (!(nv = assoc_value_parse(m->db, k, text, json_object_get(row, col),
                                     !qos, m->error)))
            return -1;
        if (!json_equal(nv, json_object_get(row, col))
            && !(json_is_null(nv) && json_is_null(json_object_get(row, col)))) {
            if (mod__update_col(m, table, json_integer_value(json_object_get(row,
                                                                         "id")),
                           col, nv) < 0) {
                json_decref(nv);
                return -1;
            }
            changed = 1;
        }
        json_object_set_new(row, col, nv);
    }
    return changed;
}

/* "Settings" lines for the limit keys of m->set. */
void mod__settings_lines(struct mod *m, bool qos)
{
    const char *key;
    json_t *v;
    char buf[64];

    json_object_foreach(m->set, key, v) {
        const struct assoc_key *k = assoc_key_find(key);
        if (!k || mod__is_entity_key(key, qos) || !strcasecmp(key, "description"))
            continue;
        mod__line(m, "  %-14s= %s", k->label, assoc_value_text(v, buf, sizeof(buf)));
    }
}

bool mod__has_limits(const json_t *set, bool qos)
{
    const char *key;
    json_t *v;

    json_object_foreach((json_t *)set, key, v) {
        if (!mod__is_entity_key(key, qos) && (!qos || strcasecmp(key,
                                                             "description")))
            return true;
    }
    return false;
}

char *mod__assoc_desc(const json_t *a)
{
    const char *user = json_string_value(json_object_get(a, "user"));
    const char *part = json_string_value(json_object_get(a, "partition"));
    char *s = xasprintf("  C = %-10s A = %-20s",
                        json_string_value(json_object_get(a, "cluster")),
                        json_string_value(json_object_get(a, "account")));
    char *t;

    if (user && user[0]) {
        t = xasprintf("%s U = %-9s", s, user);
        free(s);
        s = t;
    }
    if (part && part[0]) {
        t = xasprintf("%s P = %s", s, part);
        free(s);
        s = t;
    }
    return s;
}

/* Clusters to act on: set/where "cluster", else every cluster. */
json_t *mod__target_clusters(struct mod *m)
{
    json_t *c = mod__wlist(m->set, "cluster", false);

    if (!c)
        c = mod__wlist(m->where, "cluster", false);
    if (!c)
        c = assoc__cluster_names(m->db, m->error);
    if (c && !json_array_size(c)) {
        json_decref(c);
        mod__fail(m, " No clusters in the database; add one with "
                "'sacctmgr add cluster'");
        return NULL;
    }
    return c;
}

/* The raw association of (cluster, account, user, partition), or NULL. */
json_t *mod__find_assoc(json_t *raw, const char *cluster, const char *acct,
                          const char *user, const char *part)
{
    json_t *a;
    size_t i;

    json_array_foreach(raw, i, a) {
        if (!strcmp(json_string_value(json_object_get(a, "cluster")), cluster)
            && !strcmp(json_string_value(json_object_get(a, "account")), acct)
            && !strcmp(json_string_value(json_object_get(a, "user")), user)
            && !strcmp(json_string_value(json_object_get(a, "partition")),
                       part))
            return a;
    }
    return NULL;
}

/* Insert an association and apply m->set's limits to it. */
int mod__insert_assoc(struct mod *m, const char *cluster, const char *acct,
                        const char *user, const char *part, const char *parent)
{
    int64_t cid, id;
    json_t *row;
    int rc;

    if (assoc__cluster_id(m->db, cluster, &cid, m->error) < 0)
        return -1;
    {
        struct db_param p[] = {DB_INT(cid), DB_TEXT(acct), DB_TEXT(user),
                               DB_TEXT(part), DB_TEXT(parent)};
        if (db_query_int(m->db, "INSERT INTO assoc (cluster_id, account, "
                                "user_name, part_name, parent_account) "
                                "VALUES (?, ?, ?, ?, ?) RETURNING id",
                         p, 5, &id, m->error) < 0)
            return -1;
    }
    row = json_pack("{s:I}", "id", (json_int_t)id);
    for (size_t i = 0; assoc__assoc_cols[i].name; i++)
        json_object_set_new(row, assoc__assoc_cols[i].name, json_null());
    rc = mod__apply_limits(m, "assoc", row);
    json_decref(row);
    return rc < 0 ? -1 : 0;
}

