/* SPDX-License-Identifier: Apache-2.0
 *
 * sql_build.h - build a statement and its bound values together
 *
 * For queries whose shape depends on a filter: text is appended with
 * sql_add() (SQL of our own only, never a value) and each value with
 * sql_param() next to its '?'.
 */
#ifndef DROVER_DBD_SQL_BUILD_H
#define DROVER_DBD_SQL_BUILD_H

#include <stddef.h>

#include <jansson.h>

#include "dbd/db.h"

struct sql_build {
    char *sql;               /* owned */
    struct db_param *params; /* owned array; text values are borrowed */
    size_t n, alloc;
};

/* Append SQL text (a constant of ours; format arguments are ours too). */
void sql_add(struct sql_build *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Append "?" and bind 'p' to it. */
void sql_param(struct sql_build *b, struct db_param p);

/* Append "IN (?, ?...)" for the strings of JSON array 'list'.  Returns 0,
 * or -1 (not an array of strings; nothing appended).
 */
int sql_in_strings(struct sql_build *b, json_t *list);

/* Free the text and the array (not 'b'). */
void sql_build_clear(struct sql_build *b);

#endif /* !DROVER_DBD_SQL_BUILD_H */
