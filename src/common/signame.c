/* SPDX-License-Identifier: Apache-2.0
 *
 * signame.c - signal names as Slurm's commands read them
 */
#include <ctype.h>
#include <signal.h>
#include <stdlib.h>
#include <strings.h>

#include "common/signame.h"

static const struct {
    const char *name;
    int num;
} signals[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},   {"QUIT", SIGQUIT},
    {"ABRT", SIGABRT}, {"KILL", SIGKILL}, {"USR1", SIGUSR1},
    {"USR2", SIGUSR2}, {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},
    {"TERM", SIGTERM}, {"CHLD", SIGCHLD}, {"CONT", SIGCONT},
    {"STOP", SIGSTOP}, {"TSTP", SIGTSTP}, {"TTIN", SIGTTIN},
    {"TTOU", SIGTTOU}, {"URG", SIGURG},   {"XCPU", SIGXCPU},
    {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},
    {"WINCH", SIGWINCH}, {"SYS", SIGSYS},
};

int sig_parse(const char *s)
{
    char *end;
    long n;

    if (isdigit((unsigned char)s[0])) {
        n = strtol(s, &end, 10);
        return (*end || n <= 0 || n >= NSIG) ? -1 : (int)n;
    }
    if (strncasecmp(s, "SIG", 3) == 0)
        s += 3;
    for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++)
        if (strcasecmp(s, signals[i].name) == 0)
            return signals[i].num;
    return -1;
}
