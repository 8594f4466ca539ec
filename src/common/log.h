/* SPDX-License-Identifier: Apache-2.0
 *
 * log.h - daemon and command logging with Slurm's level names
 *
 * Levels follow SlurmctldDebug: quiet fatal error info verbose debug debug2..
 * Lines go to stderr or to a file set with log_open(); each line carries a
 * timestamp, and the level name unless it is info.
 */
#ifndef DROVER_COMMON_LOG_H
#define DROVER_COMMON_LOG_H

enum log_level {
    LOG_LEVEL_QUIET = 0,
    LOG_LEVEL_FATAL,
    LOG_LEVEL_ERROR,
    LOG_LEVEL_INFO,
    LOG_LEVEL_VERBOSE,
    LOG_LEVEL_DEBUG,
    LOG_LEVEL_DEBUG2,
    LOG_LEVEL_DEBUG3,
};

/* Set the program name printed in each line (borrowed; must outlive logging)
 * and the highest level logged.
 */
void log_init(const char *prog, enum log_level level);

/* Append to 'path' instead of stderr.  Returns 0, or -1 with errno. */
int log_open(const char *path);

/* Parse a Slurm level name ("info", "debug2", ...).  Returns -1 if unknown. */
int log_level_parse(const char *name);

void log_msg(enum log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#define log_error(...) log_msg(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_verbose(...) log_msg(LOG_LEVEL_VERBOSE, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)
#define log_debug2(...) log_msg(LOG_LEVEL_DEBUG2, __VA_ARGS__)

/* Like log_error, with ": strerror(errno)" appended.  Keeps errno. */
void log_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Log at fatal level and exit(1).  For start-up in main() only. */
void log_fatal(const char *fmt, ...)
    __attribute__((format(printf, 1, 2), noreturn));

#endif /* !DROVER_COMMON_LOG_H */
