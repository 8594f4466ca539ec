/* SPDX-License-Identifier: Apache-2.0
 *
 * assoc_mod_private.h - shared by acct_modify's files (assoc_mod_*.c)
 */
#ifndef DROVER_DBD_ASSOC_MOD_PRIVATE_H
#define DROVER_DBD_ASSOC_MOD_PRIVATE_H

#include <stdbool.h>

#include <jansson.h>

#include "dbd/db.h"

/* One acct_modify request being applied. */
struct mod {
    db_t *db;
    json_t *names;   /* requested names (lower-cased except users) */
    json_t *where;   /* body "where" (an object, maybe empty) */
    json_t *set;     /* body "set" (an object, maybe empty) */
    json_t *changed; /* the answer's lines */
    drv_error_t *error;
    bool as_admin;   /* the caller is an Administrator, not an Operator */
};

/* Keys of "set" that are not limits ("description" is one for QOS). */
bool mod__is_entity_key(const char *key, bool qos);
/* "None", "Operator" or "Administrator" for an admin level as sacctmgr
 * takes it (any case; "admin", "oper"), or NULL when 's' is none of them.
 */
const char *mod__admin_level(const char *s);
/* errno EINVAL and m->error from 'fmt'; returns -1. */
int mod__fail(struct mod *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Append one answer line. */
void mod__line(struct mod *m, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A new list of strings from "a,b", an array or a number (lower-cased
 * unless 'keep').
 */
json_t *mod__to_list(const json_t *v, bool keep);
bool mod__in_list(const json_t *list, const char *s);
/* obj[key] or obj[key + "s"] as a new list, or NULL when absent. */
json_t *mod__wlist(const json_t *obj, const char *key, bool keep);
/* The text of obj[key] (string or number), NULL when absent. */
const char *mod__sval(const json_t *obj, const char *key, char *buf,
                      size_t size);
/* UPDATE table SET col = v WHERE id = id. */
int mod__update_col(struct mod *m, const char *table, json_int_t id,
                    const char *col, const json_t *v);
/* Apply m->set's limit keys to raw row 'row' of "assoc" or "qos": 1 when
 * something changed, 0 when not, -1 on error.
 */
int mod__apply_limits(struct mod *m, const char *table, json_t *row);
/* "  Label = value" lines for m->set's limit keys. */
void mod__settings_lines(struct mod *m, bool qos);
bool mod__has_limits(const json_t *set, bool qos);
/* "  C = cluster    A = account              U = user" (caller frees). */
char *mod__assoc_desc(const json_t *a);
/* set/where "cluster", else every cluster (new list), or NULL. */
json_t *mod__target_clusters(struct mod *m);
/* The raw association of (cluster, account, user, partition), or NULL. */
json_t *mod__find_assoc(json_t *raw, const char *cluster, const char *acct,
                        const char *user, const char *part);
/* Insert an association with m->set's limits. */
int mod__insert_assoc(struct mod *m, const char *cluster, const char *acct,
                      const char *user, const char *part, const char *parent);

/* The operations (assoc_mod_add.c, assoc_mod_change.c). */
int mod__add_cluster(struct mod *m);
int mod__add_account(struct mod *m);
int mod__add_user(struct mod *m);
int mod__add_qos(struct mod *m);
int mod__modify(struct mod *m, const char *entity);
int mod__delete(struct mod *m, const char *entity);

#endif /* !DROVER_DBD_ASSOC_MOD_PRIVATE_H */
