/* SPDX-License-Identifier: Apache-2.0
 *
 * names.h - user and group names for the commands
 *
 * The controller sends user and group names with each job (it resolves
 * them where the job was submitted); these helpers cover command-line input
 * (squeue -u alice, scancel -u bob) and records that lack a name.
 */
#ifndef DROVER_CMD_LIB_NAMES_H
#define DROVER_CMD_LIB_NAMES_H

#include <sys/types.h>

/* Name of 'uid', or the number as text when the system has none.  Borrowed
 * from a cache that lives until exit.
 */
const char *names_user(uid_t uid);

/* Name of 'gid', as names_user(). */
const char *names_group(gid_t gid);

/* Resolve a user name, or a number, to a uid.  Returns 0 and sets *uid,
 * or -1 when the system knows no such user (a number is always accepted).
 */
int names_user_uid(const char *name, uid_t *uid);

/* Resolve a group name, or a number, to a gid, as names_user_uid(). */
int names_group_gid(const char *name, gid_t *gid);

#endif /* !DROVER_CMD_LIB_NAMES_H */
