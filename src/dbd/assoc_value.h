/* SPDX-License-Identifier: Apache-2.0
 *
 * assoc_value.h - the keys of acct_modify's "set" (sacctmgr's names,
 * lower-cased) and how their values are checked and stored
 */
#ifndef DROVER_DBD_ASSOC_VALUE_H
#define DROVER_DBD_ASSOC_VALUE_H

#include <stdbool.h>

#include <jansson.h>

#include "common/error.h"
#include "dbd/db.h"

enum assoc_vkind {
    AV_INT,     /* count; -1 clears */
    AV_TRES,    /* TRES string, merged by key; k=-1 removes k */
    AV_WALL,    /* time limit, stored in minutes */
    AV_SECS,    /* seconds (GraceTime) */
    AV_QOSLIST, /* QOS names, "a,b", "+a", "-a" */
    AV_QOSNAME, /* one QOS name */
    AV_PMODE,   /* preempt mode */
    AV_FLOAT,   /* usage factor */
    AV_TEXT,    /* free text */
};

struct assoc_key {
    const char *key;       /* lower-case sacctmgr name */
    const char *label;     /* as sacctmgr prints it in "Settings" */
    const char *assoc_col; /* association column (JSON key), or NULL */
    const char *qos_col;   /* QOS column, or NULL */
    enum assoc_vkind kind;
};

/* The row for 'key' (lower-case), or NULL when unknown. */
const struct assoc_key *assoc_key_find(const char *key);

/* The text of a JSON string or integer 'v' (borrowed or in 'buf'). */
const char *assoc_value_text(const json_t *v, char *buf, size_t size);

/* The new stored value of column k for 'text', given the current value
 * 'cur' (JSON; null when unset).  'for_assoc': clearing gives null (the
 * parent's value applies) instead of -1 / "".  QOS names are checked
 * against the database.  Returns a new JSON value, or NULL with errno
 * EINVAL and 'error' naming the key and value.
 */
json_t *assoc_value_parse(db_t *db, const struct assoc_key *k,
                          const char *text, const json_t *cur, bool for_assoc,
                          drv_error_t *error);

/* The stored value as sacctmgr prints it in its "Settings" lines.  Caller
 * frees.
 */
char *assoc_value_show(const struct assoc_key *k, const json_t *v);

#endif /* !DROVER_DBD_ASSOC_VALUE_H */
