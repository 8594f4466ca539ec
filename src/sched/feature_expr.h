/* SPDX-License-Identifier: Apache-2.0
 *
 * feature_expr.h - node features (slurm.conf Feature=) against a job's
 * --constraint expression
 *
 * An expression is feature names joined by '&' (and) and '|' (or), with
 * parentheses: "a100", "a100&nvlink", "a100|h100", "(a100|h100)&nvlink".
 * '&' binds tighter than '|'.  A node's features are a comma list
 * ("a100,nvlink").  Pure functions, no allocation.
 */
#ifndef DROVER_SCHED_FEATURE_EXPR_H
#define DROVER_SCHED_FEATURE_EXPR_H

#include <stdbool.h>

#include "common/error.h"

/* Maximum length of one feature name. */
#define FEATURE_EXPR_NAME_MAX 64

/* Maximum length of a whole expression, in bytes (Slurm's limit for
 * --constraint). */
#define FEATURE_EXPR_LEN_MAX 1024

/* Deepest nesting of parentheses.  Deeper expressions are malformed for
 * every function below (the parser recurses once per level, so this bounds
 * its stack use whatever the expression's source). */
#define FEATURE_EXPR_DEPTH_MAX 32

/* Check the syntax of constraint expression 'expr': at most
 * FEATURE_EXPR_LEN_MAX bytes and FEATURE_EXPR_DEPTH_MAX nested parentheses.
 * Returns 0, or -1 with errno=EINVAL and the column (or the length) in
 * 'error' (may be NULL).
 */
int feature_expr_check(const char *expr, drv_error_t *error);

/* Call 'fn' for every feature name in 'expr' (syntax already checked);
 * stops at the first nonzero return and returns it, else 0.
 */
int feature_expr_each(const char *expr, int (*fn)(const char *name, void *arg),
                  void *arg);

/* True if node 'features' (comma list, NULL = none) has 'name'. */
bool feature_expr_has(const char *features, const char *name);

/* True if a node with 'features' satisfies 'expr'.  NULL or "" expr is
 * always satisfied; a malformed expression never is.
 */
bool feature_expr_match(const char *expr, const char *features);

#endif /* !DROVER_SCHED_FEATURE_EXPR_H */
