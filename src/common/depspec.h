/* SPDX-License-Identifier: Apache-2.0
 *
 * depspec.h - job dependency expressions (sbatch --dependency)
 *
 * "afterok:12:13,afterany:14", "after:12+5", "aftercorr:20",
 * "afterok:12?afternotok:13", "singleton".  Items joined with ',' must
 * all hold; with '?' any one is enough (Slurm's syntax; the two may not
 * be mixed).  A job id may name one array task: "12_3".  Each item may
 * carry its state, "afterok:12(failed)", as dep_fmt() writes it.
 */
#ifndef DROVER_COMMON_DEPSPEC_H
#define DROVER_COMMON_DEPSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

enum dep_type {
    DEP_AFTER,
    DEP_AFTER_ANY,
    DEP_AFTER_OK,
    DEP_AFTER_NOT_OK,
    DEP_AFTER_CORR,
    DEP_SINGLETON,
};

enum dep_state {
    DEP_UNFULFILLED,
    DEP_FULFILLED,
    DEP_FAILED,
};

/* Task id of an item that names a whole job (or a whole array). */
#define DEP_TASK_ALL UINT32_MAX

struct dep_item {
    enum dep_type type;
    uint32_t job_id;  /* 0 for singleton */
    uint32_t task_id; /* DEP_TASK_ALL unless "id_task" */
    uint32_t minutes; /* after:id+minutes */
    enum dep_state state;
};

struct dep_list {
    bool any; /* joined with '?' */
    size_t count;
    struct dep_item *items;
};

/* Parse 'spec' into a new list (free with dep_list_destroy()).  NULL
 * with errno EINVAL ('error' says what is wrong) or ENOMEM.
 */
struct dep_list *dep_parse(const char *spec, drv_error_t *error);

/* Slurm's form for scontrol's Dependency=: "afterok:12(unfulfilled)",
 * items joined with ',' or '?', "after:12+5(...)", "afterok:12_3(...)",
 * "singleton(unfulfilled)".  "" for an empty list.  Caller frees; NULL
 * on ENOMEM.  With 'with_state' false the states are left out (the form
 * dep_parse() reads back).
 */
char *dep_fmt(const struct dep_list *deps, bool with_state);

/* "afterok" etc.  Static string. */
const char *dep_type_name(enum dep_type t);

/* NULL is a no-op.  errno is preserved. */
void dep_list_destroy(struct dep_list *deps);

#endif /* !DROVER_COMMON_DEPSPEC_H */
