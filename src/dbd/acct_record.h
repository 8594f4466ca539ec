/* SPDX-License-Identifier: Apache-2.0
 *
 * acct_record.h - the columns of the job and step tables, and the moves
 * between a JSON accounting record and a row
 *
 * One table per record kind names each JSON key, its column and its
 * type: the INSERT, the SELECT and the JSON answer are all made from it,
 * so a field is added in one place (plus a schema migration).
 */
#ifndef DROVER_DBD_ACCT_RECORD_H
#define DROVER_DBD_ACCT_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "dbd/db.h"

enum acct_col_kind {
    ACCT_INT,     /* integer; absent: 'dflt' */
    ACCT_TEXT,    /* string; absent: "" */
    ACCT_BOOL,    /* true/false (stored 1/0) */
    ACCT_INT_OPT, /* integer, absent from the record when NULL */
};

struct acct_col {
    const char *key;    /* JSON key */
    const char *column; /* SQL column */
    enum acct_col_kind kind;
    int64_t dflt;       /* ACCT_INT: value when the key is absent */
};

struct acct_table {
    const char *what; /* "job", "step": for messages */
    const struct acct_col *cols;
    size_t count;
};

extern const struct acct_table acct_job_table;
extern const struct acct_table acct_step_table;

/* Fill params[0..t->count-1] from 'record' (borrowed strings: valid while
 * 'record' lives).  Returns 0, or -1 with errno EINVAL and 'error' naming
 * the key of the wrong type.
 */
int acct_record_params(const struct acct_table *t, json_t *record,
                       struct db_param *params, drv_error_t *error);

/* "c1, c2, ..." with each column prefixed by 'prefix' (may be "").
 * Caller frees.
 */
char *acct_column_list(const struct acct_table *t, const char *prefix);

/* A new JSON object from columns first..first+count-1 of 'row'.  NULL on
 * ENOMEM (or a string that is not UTF-8, errno EILSEQ).
 */
json_t *acct_row_json(const struct acct_table *t, const struct db_row *row,
                      size_t first);

#endif /* !DROVER_DBD_ACCT_RECORD_H */
