/* SPDX-License-Identifier: Apache-2.0
 *
 * sim_sacct.c - date ranges and running sacct for drover-sim
 * --from-accounting (sim_sacct.h)
 */
#include "config.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cmd/sim_sacct.h"
#include "common/selfpath.h"
#include "common/xalloc.h"

extern char **environ;

/* One end of a range: "YYYY-MM" or "YYYY-MM-DD" in s[0..len).  Fills *tm
 * (UTC fields only: the dates are printed back, never converted) and
 * *day (whether a day was given).  -1 if it is not one. */
static int date_of(const char *s, size_t len, struct tm *tm, bool *day)
{
    char buf[16];
    int y, m, d = 1, n = 0;

    if (len >= sizeof(buf) || strspn(s, "0123456789-") < len)
        return -1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    if (sscanf(buf, "%4d-%2d-%2d%n", &y, &m, &d, &n) == 3 && n == 10
        && len == 10)
        *day = true;
    else if (sscanf(buf, "%4d-%2d%n", &y, &m, &n) == 2 && n == 7 && len == 7)
        *day = false;
    else
        return -1;
    *tm = (struct tm){.tm_year = y - 1900, .tm_mon = m - 1, .tm_mday = d};
    return 0;
}

/* Whether tm still says what was written (timegm() moves 2026-02-30 to
 * March): a real date. */
static bool real_date(struct tm *tm)
{
    struct tm was = *tm;

    if (was.tm_mon < 0 || was.tm_mon > 11 || was.tm_mday < 1)
        return false;
    timegm(tm);
    return tm->tm_year == was.tm_year && tm->tm_mon == was.tm_mon
           && tm->tm_mday == was.tm_mday;
}

/* The fields are a real date of a 4-digit year (date_of(), real_date());
 * the modulos only tell the compiler so. */
static void put(char out[SIM_SACCT_TIME_LEN], const struct tm *tm)
{
    snprintf(out, SIM_SACCT_TIME_LEN, "%04u-%02u-%02uT00:00:00",
             (unsigned)(tm->tm_year + 1900) % 10000u,
             (unsigned)(tm->tm_mon + 1) % 100u, (unsigned)tm->tm_mday % 100u);
}

bool sim_sacct_range(const char *source, char start[SIM_SACCT_TIME_LEN],
                     char end[SIM_SACCT_TIME_LEN], drv_error_t *error)
{
    const char *dots = strstr(source, "..");
    const char *last = dots ? dots + 2 : source;
    struct tm a, b;
    bool aday, bday;

    if (error)
        error->text[0] = '\0';
    if (date_of(source, dots ? (size_t)(dots - source) : strlen(source), &a,
                &aday) < 0
        || date_of(last, strlen(last), &b, &bday) < 0)
        return false;
    if (!real_date(&a) || !real_date(&b)) {
        errprintf(error, "'%s': no such date", source);
        return false;
    }
    put(start, &a);
    if (bday)
        b.tm_mday++;
    else
        b.tm_mon++;
    timegm(&b);
    put(end, &b);
    if (strcmp(end, start) <= 0) {
        errprintf(error, "'%s': the range ends before it starts", source);
        return false;
    }
    return true;
}

/* The sacct beside this program, if there is one; else "sacct" (PATH).
 * Caller frees. */
static char *sacct_path(void)
{
    char *path = self_sibling("sacct");

    if (path && access(path, X_OK) == 0)
        return path;
    free(path);
    return xstrdup("sacct");
}

/* All of fd into a NUL-terminated buffer (*len bytes).  NULL: ENOMEM or
 * a read error (errno). */
static char *slurp(int fd, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap), *nb;
    ssize_t r;

    while (buf) {
        if (n + 1 == cap) {
            if (!(nb = realloc(buf, cap *= 2)))
                break;
            buf = nb;
        }
        if ((r = read(fd, buf + n, cap - n - 1)) == 0) {
            buf[n] = '\0';
            *len = n;
            return buf;
        }
        if (r < 0 && errno != EINTR)
            break;
        n += r > 0 ? (size_t)r : 0;
    }
    free(buf);
    return NULL;
}

/* Wait for pid; -1 with the reason in 'error' unless it exited 0. */
static int reap(pid_t pid, const char *path, drv_error_t *error)
{
    int status;

    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return errprintf(error, "%s: %s", path, strerror(errno));
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
        return 0;
    errno = EIO;
    if (WIFSIGNALED(status))
        return errprintf(error, "%s killed by signal %d", path,
                         WTERMSIG(status));
    return errprintf(error, "%s exited with status %d", path,
                     WEXITSTATUS(status));
}

char *sim_sacct_run(const char *start, const char *end, size_t *len,
                    drv_error_t *error)
{
    char *path = sacct_path(), *out = NULL;
    char *argv[] = {path, "--json", "-a", "-X", "-S", (char *)start,
                    "-E", (char *)end, NULL};
    posix_spawn_file_actions_t fa;
    int fds[2], err;
    pid_t pid;

    if (!path || pipe(fds) < 0) {
        errprintf(error, "sacct: %s", strerror(errno));
        free(path);
        return NULL;
    }
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&fa, fds[0]);
    err = posix_spawnp(&pid, path, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (err) {
        close(fds[0]);
        errno = err;
        errprintf(error, "%s: %s", path, strerror(err));
        free(path);
        return NULL;
    }
    if (!(out = slurp(fds[0], len)))
        errprintf(error, "reading sacct's output: %s", strerror(errno));
    close(fds[0]); /* before waiting: a sacct still writing gets EPIPE */
    if (reap(pid, path, error) < 0) {
        free(out);
        out = NULL;
    }
    free(path);
    return out;
}
