/* SPDX-License-Identifier: Apache-2.0
 *
 * user_env.h - the user's login environment, for sbatch --get-user-env
 * and --export=NONE
 */
#ifndef DROVER_NODED_USER_ENV_H
#define DROVER_NODED_USER_ENV_H

/* Seconds a login shell may take, as Slurm's default --get-user-env
 * timeout. */
#define USER_ENV_TIMEOUT_S 8

/* Run 'user''s login shell ("-bash -c ..." with a minimal HOME, USER,
 * LOGNAME, SHELL, PATH) to print its environment, as Slurm's
 * "su - <user> -c /usr/bin/env", and add the variables it sets to
 * 'envp' (a NULL-terminated "K=V" array, malloc'd) unless 'envp' already
 * has them: the job's own variables take precedence, as in Slurm.
 * Meant for the forked job process, after it became the user.
 * Returns the new array (the old one is freed or reused); on any failure
 * (no such user, no shell, timeout) 'envp' unchanged, with the reason
 * written to stderr.
 */
char **user_env_merge(char **envp, const char *user, unsigned timeout_s);

#endif /* !DROVER_NODED_USER_ENV_H */
