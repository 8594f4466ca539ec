/* SPDX-License-Identifier: Apache-2.0
 *
 * log.c - timestamped log lines to stderr or a file
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"

static const char *log_prog = "drover";
static enum log_level log_max = LOG_LEVEL_INFO;
static FILE *log_fp;

static const char *const level_names[] = {
    [LOG_LEVEL_QUIET] = "quiet",     [LOG_LEVEL_FATAL] = "fatal",
    [LOG_LEVEL_ERROR] = "error",     [LOG_LEVEL_INFO] = "info",
    [LOG_LEVEL_VERBOSE] = "verbose", [LOG_LEVEL_DEBUG] = "debug",
    [LOG_LEVEL_DEBUG2] = "debug2",   [LOG_LEVEL_DEBUG3] = "debug3",
};

void log_init(const char *prog, enum log_level level)
{
    log_prog = prog;
    log_max = level;
}

int log_open(const char *path)
{
    /* Never through a link someone put at the path (docs/security.md). */
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC,
                  0644);
    FILE *fp = fd >= 0 ? fdopen(fd, "a") : NULL;

    if (!fp) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    setvbuf(fp, NULL, _IOLBF, 0);
    if (log_fp)
        fclose(log_fp);
    log_fp = fp;
    return 0;
}

int log_level_parse(const char *name)
{
    for (size_t i = 0; i < sizeof(level_names) / sizeof(level_names[0]); i++)
        if (!strcasecmp(name, level_names[i]))
            return (int)i;
    return -1;
}

static void log_vmsg(enum log_level level, const char *fmt, va_list ap,
                     const char *suffix)
{
    FILE *fp = log_fp ? log_fp : stderr;
    struct timeval tv;
    struct tm tm;
    char stamp[32];

    if (level > log_max)
        return;
    gettimeofday(&tv, NULL);
    localtime_r(&tv.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    fprintf(fp, "[%s.%03ld] %s: ", stamp, (long)tv.tv_usec / 1000, log_prog);
    if (level != LOG_LEVEL_INFO)
        fprintf(fp, "%s: ", level_names[level]);
    vfprintf(fp, fmt, ap);
    if (suffix)
        fprintf(fp, ": %s", suffix);
    fputc('\n', fp);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
    int saved_errno = errno;
    va_list ap;

    va_start(ap, fmt);
    log_vmsg(level, fmt, ap, NULL);
    va_end(ap);
    errno = saved_errno;
}

void log_err(const char *fmt, ...)
{
    int saved_errno = errno;
    va_list ap;

    va_start(ap, fmt);
    log_vmsg(LOG_LEVEL_ERROR, fmt, ap, strerror(saved_errno));
    va_end(ap);
    errno = saved_errno;
}

void log_fatal(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    log_vmsg(LOG_LEVEL_FATAL, fmt, ap, NULL);
    va_end(ap);
    exit(1);
}
