/* SPDX-License-Identifier: Apache-2.0
 *
 * assoc_mod_change.c - acct_modify "modify" and "delete", and the entry
 * point that runs one request in a transaction
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/xalloc.h"
#include "dbd/assoc_mod_private.h"
#include "dbd/assoc_private.h"
#include "dbd/assoc_store.h"

/* Raw associations matching the request: entity "account" (own, user ""),
 * "user" (user associations of m->names) or "cluster" (root of it).
 */
static json_t *matching_assocs(struct mod *m, const char *entity)
{
    json_t *raw = assoc__raw_assocs(m->db, NULL, m->error);
    json_t *cl = mod__wlist(m->where, "cluster", false);
    json_t *ac = mod__wlist(m->where, "account", false);
    json_t *pa = mod__wlist(m->where, "partition", false);
    json_t *out = json_array(), *a;
    size_t i;

    json_array_foreach(raw, i, a) {
        const char *c = json_string_value(json_object_get(a, "cluster"));
        const char *acct = json_string_value(json_object_get(a, "account"));
        const char *user = json_string_value(json_object_get(a, "user"));
        const char *part = json_string_value(json_object_get(a, "partition"));
        bool ok;
        if (!strcmp(entity, "cluster"))
            ok = mod__in_list(m->names, c) && !strcmp(acct, "root")
                 && !user[0];
        else if (!strcmp(entity, "account"))
            ok = mod__in_list(m->names, acct) && !user[0];
        else
            ok = user[0] && mod__in_list(m->names, user)
                 && (!ac || mod__in_list(ac, acct))
                 && (!pa || mod__in_list(pa, part));
        if (ok && (!cl || mod__in_list(cl, c)))
            json_array_append(out, a);
    }
    json_decref(raw);
    json_decref(cl);
    json_decref(ac);
    json_decref(pa);
    return out;
}

/* Would 'acct' under 'parent' on 'cluster' make a loop? */
static bool below(json_t *raw, const char *cluster, const char *parent,
                  const char *acct)
{
    for (int depth = 0; parent[0] && depth < 64; depth++) {
        json_t *a = mod__find_assoc(raw, cluster, parent, "", "");
        if (!strcmp(parent, acct))
            return true;
        if (!a)
            return false;
        parent = json_string_value(json_object_get(a, "parent_account"));
    }
    return true;
}

static int set_parent(struct mod *m, json_t *a, const char *parent, int *chg)
{
    const char *cl = json_string_value(json_object_get(a, "cluster"));
    const char *acct = json_string_value(json_object_get(a, "account"));
    json_t *raw = assoc__raw_assocs(m->db, cl, m->error);
    int rc = -1;

    if (!raw)
        return -1;
    if (!strcmp(parent, json_string_value(json_object_get(a,
                                                          "parent_account"))))
        rc = 0;
    else if (!mod__find_assoc(raw, cl, parent, "", ""))
        rc = errprintf(m->error, " error: Parent account '%s' doesn't exist "
                       "on cluster %s", parent, cl);
    else if (!strcmp(acct, "root") || below(raw, cl, parent, acct))
        rc = errprintf(m->error, " error: Account '%s' can not be moved under"
                       " '%s'", acct, parent);
    else if ((rc = mod__update_col(m, "assoc", json_integer_value(
                                       json_object_get(a, "id")),
                                   "parent_account", json_string(parent)))
             == 0)
        *chg = 1;
    if (rc < 0 && !errno)
        errno = EINVAL;
    if (rc < 0 && strstr(m->error->text, "error:"))
        errno = EINVAL;
    json_decref(raw);
    return rc;
}

static int modify_assocs(struct mod *m, const char *entity, const char *title)
{
    char buf[256];
    const char *p = mod__sval(m->set, "parent", buf, sizeof(buf));
    char *parent = p ? assoc__lower(p) : NULL;
    json_t *rows = matching_assocs(m, entity), *a;
    bool titled = false;
    size_t i;
    int rc = 0;

    json_array_foreach(rows, i, a) {
        int chg = 0;
        if ((parent && !strcmp(entity, "account")
             && set_parent(m, a, parent, &chg) < 0)
            || (rc = mod__apply_limits(m, "assoc", a)) < 0) {
            rc = -1;
            break;
        }
        if (rc > 0 || chg) {
            char *d = mod__assoc_desc(a);
            if (!titled)
                mod__line(m, " %s", title);
            titled = true;
            mod__line(m, "%s", d);
            free(d);
        }
        rc = 0;
    }
    free(parent);
    json_decref(rows);
    return rc;
}

/* Set column 'col' of the row 'name' of 'table' to 'val'.  *changed: the
 * row had another value.
 */
static int set_row_col(struct mod *m, const char *table, const char *name,
                       const char *col, const char *val, bool *changed)
{
    struct db_param p[] = {DB_TEXT(name), DB_TEXT(val)};
    char *sql = xasprintf("SELECT COUNT(*) FROM %s WHERE name = ? AND "
                          "%s <> ?", table, col);
    int64_t n = 0;
    int rc = db_query_int(m->db, sql, p, 2, &n, m->error);

    free(sql);
    if (rc < 0 || n == 0)
        return rc;
    *changed = true;
    {
        struct db_param u[] = {DB_TEXT(val), DB_TEXT(name)};
        sql = xasprintf("UPDATE %s SET %s = ? WHERE name = ?", table, col);
        rc = db_exec(m->db, sql, u, 2, m->error);
        free(sql);
    }
    return rc;
}

/* Entity-level columns of acct / acct_user: 'keys' pairs set key, column. */
static int modify_rows(struct mod *m, const char *table,
                       const char *const *keys, const char *title)
{
    bool titled = false;
    json_t *v;
    size_t i;

    json_array_foreach(m->names, i, v) {
        bool changed = false;
        for (size_t k = 0; keys[k]; k += 2) {
            char buf[256];
            const char *val = mod__sval(m->set, keys[k], buf, sizeof(buf));
            if (val && set_row_col(m, table, json_string_value(v),
                                   keys[k + 1], val, &changed) < 0)
                return -1;
        }
        if (changed) {
            if (!titled)
                mod__line(m, " %s", title);
            titled = true;
            mod__line(m, "  %s", json_string_value(v));
        }
    }
    return 0;
}

static int check_user_values(struct mod *m)
{
    json_t *l = json_object_get(m->set, "adminlevel");
    const char *level = mod__admin_level(json_string_value(l));
    char buf[256];
    const char *def = mod__sval(m->set, "defaultaccount", buf, sizeof(buf));

    if (def && assoc_store_check_name("account", def, m->error) < 0)
        return -1;
    if (!l)
        return 0;
    if (!level)
        return mod__fail(m, " Bad AdminLevel value: %s",
                         json_string_value(l) ? json_string_value(l) : "");
    json_object_set_new(m->set, "adminlevel", json_string(level));
    return 0;
}

static int modify_qos(struct mod *m)
{
    json_t *rows = assoc__qos_rows(m->db, m->error), *q;
    size_t i;
    int rc = 0;

    json_array_foreach(rows, i, q) {
        const char *name = json_string_value(json_object_get(q, "name"));
        if (!mod__in_list(m->names, name))
            continue;
        if ((rc = mod__apply_limits(m, "qos", q)) < 0)
            break;
        if (rc > 0 && !json_array_size(m->changed))
            mod__line(m, " Modified qos...");
        if (rc > 0)
            mod__line(m, "  %s", name);
        rc = 0;
    }
    json_decref(rows);
    return rows ? rc : -1;
}

int mod__modify(struct mod *m, const char *entity)
{
    static const char *const acct_keys[] = {
        "description", "description", "organization", "organization", NULL};
    static const char *const user_keys[] = {
        "defaultaccount", "default_account", "adminlevel", "admin_level",
        NULL};

    if (!strcmp(entity, "qos"))
        return modify_qos(m);
    if (!strcmp(entity, "account"))
        return modify_rows(m, "acct", acct_keys, "Modified accounts...") < 0
                   ? -1
                   : modify_assocs(m, "account",
                                   "Modified account associations...");
    if (!strcmp(entity, "user"))
        return (check_user_values(m) < 0
                || modify_rows(m, "acct_user", user_keys,
                               "Modified users...") < 0)
                   ? -1
                   : modify_assocs(m, "user", "Modified user associations...");
    return modify_assocs(m, "cluster", "Modified cluster...");
}

/* Delete ------------------------------------------------------------------ */

static int delete_where(struct mod *m, const char *sql, const char *name)
{
    struct db_param p[] = {DB_TEXT(name)};

    return db_exec(m->db, sql, p, 1, m->error);
}

static int delete_assoc_rows(struct mod *m, json_t *rows)
{
    json_t *a;
    size_t i;

    json_array_foreach(rows, i, a) {
        struct db_param p[] = {DB_INT(json_integer_value(json_object_get(a,
                                                                        "id")))};
        if (db_exec(m->db, "DELETE FROM assoc WHERE id = ?", p, 1, m->error)
            < 0)
            return -1;
    }
    return 0;
}

/* Remove QOS 'name' from every list that names it. */
static int forget_qos(struct mod *m, const char *name)
{
    json_t *raw = assoc__raw_assocs(m->db, NULL, m->error), *qos, *a;
    size_t i;
    int rc = raw ? 0 : -1;

    json_array_foreach(raw, i, a) {
        json_int_t id = json_integer_value(json_object_get(a, "id"));
        json_t *list = json_object_get(a, "qos");
        if (rc == 0 && json_is_array(list) && mod__in_list(list, name)) {
            json_t *left = json_array(), *q;
            size_t j;
            json_array_foreach(list, j, q) {
                if (strcmp(json_string_value(q), name))
                    json_array_append(left, q);
            }
            rc = mod__update_col(m, "assoc", id, "qos", left);
            json_decref(left);
        }
        if (rc == 0 && !strcmp(json_string_value(json_object_get(a, "def_qos"))
                                   ? json_string_value(json_object_get(
                                         a, "def_qos")) : "", name))
            rc = mod__update_col(m, "assoc", id, "def_qos", json_null());
    }
    json_decref(raw);
    qos = rc == 0 ? assoc__qos_rows(m->db, m->error) : NULL;
    json_array_foreach(qos, i, a) {
        json_t *list = json_object_get(a, "preempt");
        if (rc == 0 && mod__in_list(list, name)) {
            json_t *left = json_array(), *q;
            size_t j;
            json_array_foreach(list, j, q) {
                if (strcmp(json_string_value(q), name))
                    json_array_append(left, q);
            }
            rc = mod__update_col(m, "qos", json_integer_value(json_object_get(
                                               a, "id")), "preempt", left);
            json_decref(left);
        }
    }
    json_decref(qos);
    return rc;
}

static int delete_qos(struct mod *m)
{
    json_t *v;
    size_t i;

    json_array_foreach(m->names, i, v) {
        bool yes;
        const char *name = json_string_value(v);
        if (assoc__exists(m->db, "qos", name, &yes, m->error) < 0)
            return -1;
        if (!yes)
            continue;
        if (delete_where(m, "DELETE FROM qos WHERE name = ?", name) < 0
            || forget_qos(m, name) < 0)
            return -1;
        if (!json_array_size(m->changed))
            mod__line(m, " Deleting QOS(s)...");
        mod__line(m, "  %s", name);
    }
    return 0;
}

/* Sub-accounts of the account associations in 'rows' that are not being
 * deleted too.
 */
static bool has_children(struct mod *m, json_t *rows, char *busy,
                         size_t size)
{
    json_t *raw = assoc__raw_assocs(m->db, NULL, m->error), *a, *r;
    bool found = false;
    size_t i, j;

    json_array_foreach(rows, j, r) {
        json_array_foreach(raw, i, a) {
            const char *user = json_string_value(json_object_get(a, "user"));
            if (!user[0]
                && !strcmp(json_string_value(json_object_get(a, "cluster")),
                           json_string_value(json_object_get(r, "cluster")))
                && !strcmp(json_string_value(json_object_get(
                               a, "parent_account")),
                           json_string_value(json_object_get(r, "account")))
                && !mod__in_list(m->names, json_string_value(
                                               json_object_get(a, "account"))))
            {
                found = true;
                snprintf(busy, size, "%s", json_string_value(
                                               json_object_get(r, "account")));
            }
        }
    }
    json_decref(raw);
    return found;
}

static int delete_accounts(struct mod *m)
{
    json_t *rows = matching_assocs(m, "account"), *users, *v;
    size_t i;
    int rc = -1;
    char busy[256];

    if (mod__in_list(m->names, "root")) {
        json_decref(rows);
        return mod__fail(m, " Can't delete the root account%s", "");
    }
    if (has_children(m, rows, busy, sizeof(busy))) {
        json_decref(rows);
        return mod__fail(m, " Error with request: account '%s' still has "
                            "sub-accounts", busy);
    }
    /* The users' associations under these accounts go with them. */
    users = json_array();
    json_array_foreach(rows, i, v) {
        json_t *raw = assoc__raw_assocs(m->db, json_string_value(
                                            json_object_get(v, "cluster")),
                                        m->error), *a;
        size_t j;
        json_array_foreach(raw, j, a) {
            if (json_string_value(json_object_get(a, "user"))[0]
                && !strcmp(json_string_value(json_object_get(a, "account")),
                           json_string_value(json_object_get(v, "account"))))
                json_array_append(users, a);
        }
        json_decref(raw);
    }
    if (delete_assoc_rows(m, users) < 0 || delete_assoc_rows(m, rows) < 0)
        goto out;
    json_array_foreach(m->names, i, v) {
        bool yes;
        const char *name = json_string_value(v);
        if (assoc__exists(m->db, "acct", name, &yes, m->error) < 0)
            goto out;
        if (!yes)
            continue;
        if (db_exec(m->db, "DELETE FROM acct WHERE name = ? AND NOT EXISTS "
                           "(SELECT 1 FROM assoc WHERE assoc.account = "
                           "acct.name)", (struct db_param[]){DB_TEXT(name)},
                    1, m->error) < 0
            || db_exec(m->db, "UPDATE acct_user SET default_account = '' "
                              "WHERE default_account = ? AND NOT EXISTS "
                              "(SELECT 1 FROM assoc WHERE assoc.account = "
                              "acct_user.default_account)",
                       (struct db_param[]){DB_TEXT(name)}, 1, m->error) < 0)
            goto out;
        if (!json_array_size(m->changed))
            mod__line(m, " Deleting accounts...");
        mod__line(m, "  %s", name);
    }
    rc = 0;
out:
    json_decref(users);
    json_decref(rows);
    return rc;
}

static int delete_users(struct mod *m)
{
    json_t *rows = matching_assocs(m, "user"), *v;
    bool partial = json_object_get(m->where, "account")
                   || json_object_get(m->where, "accounts")
                   || json_object_get(m->where, "cluster")
                   || json_object_get(m->where, "partition");
    size_t i;
    int rc = delete_assoc_rows(m, rows);

    if (rc == 0 && partial) {
        json_array_foreach(rows, i, v) {
            char *d = mod__assoc_desc(v);
            if (!json_array_size(m->changed))
                mod__line(m, " Deleting user associations...");
            mod__line(m, "%s", d);
            free(d);
        }
    }
    json_array_foreach(m->names, i, v) {
        bool yes;
        if (rc < 0 || partial)
            break;
        if ((rc = assoc__exists(m->db, "acct_user", json_string_value(v),
                                &yes, m->error)) < 0 || !yes)
            continue;
        if ((rc = delete_where(m, "DELETE FROM acct_user WHERE name = ?",
                               json_string_value(v))) < 0)
            break;
        if (!json_array_size(m->changed))
            mod__line(m, " Deleting users...");
        mod__line(m, "  %s", json_string_value(v));
    }
    json_decref(rows);
    return rc;
}

static int delete_clusters(struct mod *m)
{
    json_t *have = assoc__cluster_names(m->db, m->error), *v;
    size_t i;
    int rc = have ? 0 : -1;

    json_array_foreach(m->names, i, v) {
        const char *name = json_string_value(v);
        if (rc < 0 || !mod__in_list(have, name))
            continue;
        if ((rc = delete_where(m, "DELETE FROM assoc WHERE cluster_id = "
                                  "(SELECT id FROM cluster WHERE name = ?)",
                               name)) < 0
            || (rc = delete_where(m, "DELETE FROM cluster WHERE name = ? AND "
                                     "NOT EXISTS (SELECT 1 FROM job WHERE "
                                     "job.cluster_id = cluster.id)",
                                  name)) < 0)
            break;
        if (!json_array_size(m->changed))
            mod__line(m, " Deleting clusters...");
        mod__line(m, "  %s", name);
    }
    json_decref(have);
    return rc;
}

int mod__delete(struct mod *m, const char *entity)
{
    if (!strcmp(entity, "qos"))
        return delete_qos(m);
    if (!strcmp(entity, "account"))
        return delete_accounts(m);
    if (!strcmp(entity, "user"))
        return delete_users(m);
    return delete_clusters(m);
}

/* Entry point ------------------------------------------------------------- */

static int check_body(struct mod *m, json_t *body, const char **op,
                      const char **entity)
{
    static const char *const entities[] = {"cluster", "account", "user", "qos",
                                           NULL};
    json_t *names = json_object_get(body, "names"), *wn;
    bool known = false;

    *op = json_string_value(json_object_get(body, "op"));
    *entity = json_string_value(json_object_get(body, "entity"));
    for (size_t i = 0; *entity && entities[i]; i++)
        known |= !strcmp(*entity, entities[i]);
    if (!*op || (strcmp(*op, "add") && strcmp(*op, "modify")
                 && strcmp(*op, "delete")))
        return mod__fail(m, " Unknown operation: %s", *op ? *op : "(none)");
    if (!known)
        return mod__fail(m, " Unknown entity: %s", *entity ? *entity
                                                           : "(none)");
    m->where = json_is_object(json_object_get(body, "where"))
                   ? json_incref(json_object_get(body, "where"))
                   : json_object();
    m->set = json_is_object(json_object_get(body, "set"))
                 ? json_deep_copy(json_object_get(body, "set")) /* adminlevel
                                                    gets normalised */
                 : json_object();
    {
        json_t *none = json_array();
        m->names = mod__to_list(names ? names : none,
                                !strcmp(*entity, "user"));
        json_decref(none);
    }
    if ((wn = mod__wlist(m->where, "name", !strcmp(*entity, "user")))) {
        json_array_extend(m->names, wn);
        json_decref(wn);
    }
    if (!json_array_size(m->names))
        return mod__fail(m, " No %s name given", *entity);
    return 0;
}

/* errno EPERM and m->error; returns -1. */
static int denied(struct mod *m, const char *text)
{
    errprintf(m->error, "%s", text);
    errno = EPERM;
    return -1;
}

/* Is one of the users named by the request an Administrator? */
static int names_admin(struct mod *m, bool *yes)
{
    json_t *v;
    size_t i;

    *yes = false;
    json_array_foreach(m->names, i, v) {
        char level[32];
        if (assoc_store_admin_level(m->db, json_string_value(v), level,
                                    sizeof(level), m->error) < 0)
            return -1;
        *yes |= !strcmp(level, "Administrator");
    }
    return 0;
}

/* Slurm's rule for an Operator: it may grant None or Operator, but never
 * Administrator, and may neither change the level of nor remove an
 * Administrator.
 */
static int check_operator(struct mod *m, const char *op, const char *entity)
{
    static const char higher[] = "You have to be the same or higher admin "
                                 "level to change another persons";
    json_t *l = json_object_get(m->set, "adminlevel");
    const char *level = mod__admin_level(json_string_value(l));
    bool admin;

    if (strcmp(entity, "user") || (!l && strcmp(op, "delete")))
        return 0;
    if (level && !strcmp(level, "Administrator"))
        return denied(m, !strcmp(op, "add") ? "Only Administrators can add "
                                              "an Administrator"
                                            : higher);
    if (!strcmp(op, "add"))
        return 0;
    if (names_admin(m, &admin) < 0)
        return -1;
    if (admin)
        return denied(m, !strcmp(op, "delete") ? "Only Administrators can "
                                                 "remove an Administrator"
                                               : higher);
    return 0;
}

json_t *assoc_store_modify(db_t *db, json_t *body, bool dry_run,
                           bool as_admin, drv_error_t *error)
{
    struct mod m = {.db = db, .changed = json_array(), .error = error,
                    .as_admin = as_admin};
    const char *op, *entity;
    int rc;

    if (check_body(&m, body, &op, &entity) < 0
        || (!as_admin && check_operator(&m, op, entity) < 0)
        || db_begin(db, error) < 0) {
        rc = -1;
        goto out;
    }
    if (!strcmp(op, "add"))
        rc = !strcmp(entity, "cluster")   ? mod__add_cluster(&m)
             : !strcmp(entity, "account") ? mod__add_account(&m)
             : !strcmp(entity, "user")    ? mod__add_user(&m)
                                          : mod__add_qos(&m);
    else if (!strcmp(op, "modify"))
        rc = mod__modify(&m, entity);
    else
        rc = mod__delete(&m, entity);
    if (rc == 0 && json_array_size(m.changed))
        rc = assoc__bump(db, error);
    if (rc < 0 || dry_run) {
        int e = errno;
        db_rollback(db);
        errno = e;
    } else {
        rc = db_commit(db, error);
    }
out:
    json_decref(m.where);
    json_decref(m.set);
    json_decref(m.names);
    if (rc < 0) {
        if (errno != EINVAL && errno != EPERM)
            errno = EIO;
        json_decref(m.changed);
        return NULL;
    }
    return json_pack("{s:o}", "changed", m.changed);
}
