/* SPDX-License-Identifier: Apache-2.0
 *
 * assoc_mod_add.c - acct_modify "add": clusters, accounts, users, QOS,
 * with sacctmgr's (Slurm 22.05) summary lines
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

int mod__add_cluster(struct mod *m)
{
    json_t *have = assoc__cluster_names(m->db, m->error), *v, *raw;
    size_t i;
    int rc = 0;

    if (!have)
        return -1;
    json_array_foreach(m->names, i, v) {
        const char *name = json_string_value(v);
        if (mod__in_list(have, name))
            continue;
        if (assoc_store_ensure_cluster(m->db, name, m->error) < 0
            || !(raw = assoc__raw_assocs(m->db, name, m->error))) {
            rc = -1;
            break;
        }
        rc = mod__apply_limits(m, "assoc", mod__find_assoc(raw, name, "root",
                                                           "", ""));
        json_decref(raw);
        if (rc < 0)
            break;
        if (json_array_size(m->changed) == 0)
            mod__line(m, " Adding Cluster(s)");
        mod__line(m, "  Name           = %s", name);
    }
    json_decref(have);
    return rc < 0 ? -1 : 0;
}

static int insert_account(struct mod *m, const char *name, const char *parent,
                          bool *added)
{
    char b1[256], b2[256];
    const char *desc = mod__sval(m->set, "description", b1, sizeof(b1));
    const char *org = mod__sval(m->set, "organization", b2, sizeof(b2));
    bool yes;

    if (assoc__exists(m->db, "acct", name, &yes, m->error) < 0)
        return -1;
    *added = !yes;
    if (yes)
        return 0;
    {
        struct db_param p[] = {
            DB_TEXT(name), DB_TEXT(desc ? desc : name),
            DB_TEXT(org ? org : strcmp(parent, "root") ? parent : name)};
        return db_exec(m->db, "INSERT INTO acct (name, description, "
                              "organization) VALUES (?, ?, ?)",
                       p, 3, m->error);
    }
}

/* Add the associations of account 'name' under 'parent' on 'clusters'. */
static int account_assocs(struct mod *m, const char *name, const char *parent,
                          json_t *clusters, json_t *raw, json_t *lines)
{
    json_t *c;
    size_t i;

    json_array_foreach(clusters, i, c) {
        const char *cl = json_string_value(c);
        char *text;
        if (mod__find_assoc(raw, cl, name, "", ""))
            continue;
        if (!mod__find_assoc(raw, cl, parent, "", "")) {
            errno = EINVAL;
            return errprintf(m->error, " error: Parent account '%s' doesn't "
                             "exist on cluster %s", parent, cl);
        }
        if (mod__insert_assoc(m, cl, name, "", "", parent) < 0)
            return -1;
        text = xasprintf("  A = %-10.10s C = %-10.10s", name, cl);
        json_array_append_new(lines, json_string(text));
        free(text);
    }
    return 0;
}

static void account_lines(struct mod *m, json_t *added, json_t *alines,
                          const char *parent)
{
    char b1[256], b2[256];
    const char *desc = mod__sval(m->set, "description", b1, sizeof(b1));
    const char *org = mod__sval(m->set, "organization", b2, sizeof(b2));
    json_t *v;
    size_t i;

    if (json_array_size(added)) {
        mod__line(m, " Adding Account(s)");
        json_array_foreach(added, i, v)
            mod__line(m, "  %s", json_string_value(v));
        mod__line(m, " Settings");
        mod__line(m, "  Description     = %s", desc ? desc : "Account Name");
        mod__line(m, "  Organization    = %s",
                  org ? org : "Parent/Account Name");
    }
    if (json_array_size(alines)) {
        mod__line(m, " Associations");
        json_array_foreach(alines, i, v)
            mod__line(m, "%s", json_string_value(v));
    }
    if (json_array_size(alines) && (mod__has_limits(m->set, false)
                                    || strcmp(parent, "root"))) {
        mod__line(m, " Settings");
        if (strcmp(parent, "root"))
            mod__line(m, "  Parent        = %s", parent);
        mod__settings_lines(m, false);
    }
}

int mod__add_account(struct mod *m)
{
    char buf[256];
    const char *p = mod__sval(m->set, "parent", buf, sizeof(buf));
    char *parent = assoc__lower(p && p[0] ? p : "root");
    json_t *clusters = NULL, *raw = NULL, *added = json_array(),
           *alines = json_array(), *v;
    size_t i;
    int rc = -1;

    if (!(clusters = mod__target_clusters(m))
        || !(raw = assoc__raw_assocs(m->db, NULL, m->error)))
        goto out;
    json_array_foreach(m->names, i, v) {
        bool is_new;
        if (assoc_store_check_name("account", json_string_value(v), m->error)
            < 0)
            goto out;
        if (!strcmp(json_string_value(v), parent)) {
            mod__fail(m, " An account can not be its own parent: %s",
                      parent);
            goto out;
        }
        if (insert_account(m, json_string_value(v), parent, &is_new) < 0
            || account_assocs(m, json_string_value(v), parent, clusters, raw,
                              alines) < 0)
            goto out;
        if (is_new)
            json_array_append(added, v);
    }
    account_lines(m, added, alines, parent);
    rc = 0;
out:
    free(parent);
    json_decref(clusters);
    json_decref(raw);
    json_decref(added);
    json_decref(alines);
    return rc;
}

static int insert_user(struct mod *m, const char *name, const char *def,
                       const char *level, bool *added)
{
    bool yes;

    if (assoc__exists(m->db, "acct_user", name, &yes, m->error) < 0)
        return -1;
    *added = !yes;
    if (yes)
        return 0;
    {
        struct db_param p[] = {DB_TEXT(name), DB_TEXT(def),
                               DB_TEXT(level ? level : "None")};
        return db_exec(m->db, "INSERT INTO acct_user (name, default_account, "
                              "admin_level) VALUES (?, ?, ?)",
                       p, 3, m->error);
    }
}

static int user_assocs(struct mod *m, const char *user, json_t *accts,
                       json_t *clusters, const char *part, json_t *raw,
                       json_t *lines)
{
    json_t *c, *a;
    size_t i, j;

    json_array_foreach(clusters, i, c) {
        json_array_foreach(accts, j, a) {
            const char *cl = json_string_value(c), *ac = json_string_value(a);
            char *text;
            if (mod__find_assoc(raw, cl, ac, user, part))
                continue;
            if (!mod__find_assoc(raw, cl, ac, "", "")) {
                errno = EINVAL;
                return errprintf(m->error, " error: Account '%s' doesn't "
                                 "exist on cluster %s", ac, cl);
            }
            if (mod__insert_assoc(m, cl, ac, user, part, ac) < 0)
                return -1;
            text = xasprintf("  U = %-9.9s A = %-10.10s C = %-10.10s", user,
                             ac, cl);
            json_array_append_new(lines, json_string(text));
            free(text);
        }
    }
    return 0;
}

static void user_lines(struct mod *m, json_t *added, json_t *alines,
                       const char *def, const char *level)
{
    json_t *v;
    size_t i;

    if (json_array_size(added)) {
        mod__line(m, " Adding User(s)");
        json_array_foreach(added, i, v)
            mod__line(m, "  %s", json_string_value(v));
        mod__line(m, " Settings =");
        mod__line(m, "  Default Account = %s", def);
        if (level)
            mod__line(m, "  Admin Level     = %s", level);
    }
    if (json_array_size(alines)) {
        mod__line(m, " Associations =");
        json_array_foreach(alines, i, v)
            mod__line(m, "%s", json_string_value(v));
        if (mod__has_limits(m->set, false)) {
            mod__line(m, " Non Default Settings");
            mod__settings_lines(m, false);
        }
    }
}

int mod__add_user(struct mod *m)
{
    char b1[256], b2[64], b3[256];
    json_t *accts = mod__wlist(m->set, "account", false);
    const char *d = mod__sval(m->set, "defaultaccount", b1, sizeof(b1));
    const char *l = mod__sval(m->set, "adminlevel", b2, sizeof(b2));
    const char *part = mod__sval(m->set, "partition", b3, sizeof(b3));
    const char *level = l ? mod__admin_level(l) : NULL;
    char *def = NULL;
    json_t *clusters = NULL, *raw = NULL, *added = json_array(),
           *alines = json_array(), *v;
    size_t i;
    int rc = -1;

    if (!accts && d)
        accts = mod__to_list(json_object_get(m->set, "defaultaccount"), false);
    if (!accts || !json_array_size(accts)) {
        mod__fail(m, " Need name of account to add user to.");
        goto out;
    }
    if (l && !level) {
        mod__fail(m, " Bad AdminLevel value: %s", l);
        goto out;
    }
    def = d ? assoc__lower(d) : xstrdup(json_string_value(json_array_get(
              accts, 0)));
    if (assoc_store_check_name("account", def, m->error) < 0)
        goto out;
    if (!(clusters = mod__target_clusters(m))
        || !(raw = assoc__raw_assocs(m->db, NULL, m->error)))
        goto out;
    json_array_foreach(m->names, i, v) {
        bool is_new;
        if (assoc_store_check_name("user", json_string_value(v), m->error) < 0
            || insert_user(m, json_string_value(v), def, level, &is_new) < 0
            || user_assocs(m, json_string_value(v), accts, clusters,
                           part ? part : "", raw, alines) < 0)
            goto out;
        if (is_new)
            json_array_append(added, v);
    }
    user_lines(m, added, alines, def, level);
    rc = 0;
out:
    free(def);
    json_decref(accts);
    json_decref(clusters);
    json_decref(raw);
    json_decref(added);
    json_decref(alines);
    return rc;
}

int mod__add_qos(struct mod *m)
{
    static const struct assoc_col id_col[] = {{"id", ACOL_INT}, {NULL, 0}};
    char buf[256];
    const char *desc = mod__sval(m->set, "description", buf, sizeof(buf));
    json_t *v, *rows;
    size_t i;

    json_array_foreach(m->names, i, v) {
        struct db_param p[] = {DB_TEXT(json_string_value(v)),
                               DB_TEXT(desc ? desc : json_string_value(v))};
        bool yes;
        if (assoc_store_check_name("QOS", json_string_value(v), m->error) < 0
            || assoc__exists(m->db, "qos", json_string_value(v), &yes,
                             m->error) < 0)
            return -1;
        if (yes)
            continue;
        if (db_exec(m->db, "INSERT INTO qos (name, description) VALUES (?, ?)",
                    p, 2, m->error) < 0
            || !(rows = assoc__select(m->db, "SELECT id FROM qos WHERE "
                                             "name = ?", p, 1, id_col,
                                      m->error)))
            return -1;
        for (size_t c = 0; assoc__qos_cols[c].name; c++)
            json_object_set_new(json_array_get(rows, 0),
                                assoc__qos_cols[c].name, json_null());
        int rc = mod__apply_limits(m, "qos", json_array_get(rows, 0));
        json_decref(rows);
        if (rc < 0)
            return -1;
        if (!json_array_size(m->changed))
            mod__line(m, " Adding QOS(s)");
        mod__line(m, "  %s", json_string_value(v));
    }
    if (json_array_size(m->changed)) {
        mod__line(m, " Settings");
        mod__line(m, "  Description    = %s", desc ? desc : "QOS Name");
        mod__settings_lines(m, true);
    }
    return 0;
}
