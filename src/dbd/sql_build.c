/* SPDX-License-Identifier: Apache-2.0
 *
 * sql_build.c - statement text and bound values built side by side
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/xalloc.h"
#include "dbd/sql_build.h"

void sql_add(struct sql_build *b, const char *fmt, ...)
{
    va_list ap;
    char *more, *next;

    va_start(ap, fmt);
    if (vasprintf(&more, fmt, ap) < 0)
        abort();
    va_end(ap);
    next = xasprintf("%s%s", b->sql ? b->sql : "", more);
    free(more);
    free(b->sql);
    b->sql = next;
}

void sql_param(struct sql_build *b, struct db_param p)
{
    if (b->n == b->alloc) {
        b->alloc = b->alloc ? 2 * b->alloc : 16;
        b->params = realloc(b->params, b->alloc * sizeof(*b->params));
        if (!b->params)
            abort();
    }
    b->params[b->n++] = p;
    sql_add(b, "?");
}

int sql_in_strings(struct sql_build *b, json_t *list)
{
    json_t *v;
    size_t i;

    if (!json_is_array(list) || json_array_size(list) == 0)
        return -1;
    json_array_foreach(list, i, v) {
        if (!json_is_string(v))
            return -1;
    }
    sql_add(b, "IN (");
    json_array_foreach(list, i, v) {
        if (i)
            sql_add(b, ", ");
        sql_param(b, DB_TEXT(json_string_value(v)));
    }
    sql_add(b, ")");
    return 0;
}

void sql_build_clear(struct sql_build *b)
{
    free(b->sql);
    free(b->params);
    b->sql = NULL;
    b->params = NULL;
    b->n = b->alloc = 0;
}
