/* SPDX-License-Identifier: Apache-2.0
 *
 * scancel.c - cancel or signal jobs (Slurm's scancel)
 *
 * Job ids on the command line are cancelled one by one.  Filters (-u, -t,
 * -n, -p, -w) select from the controller's job list instead, and with ids
 * they narrow those ids.  As in Slurm 22.05, a job that is unknown or
 * already finished is skipped without a word; any other refusal is
 * reported and becomes the exit status (Slurm's error number, truncated to
 * eight bits: "Access/permission denied" exits 210).
 */
#include "config.h"

#include <ctype.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cmd/lib/jobview.h"
#include "cmd/lib/jsonget.h"
#include "cmd/lib/names.h"
#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/states.h"
#include "common/hostlist.h"
#include "common/xalloc.h"

enum {
    OPT_HELP = CMD_OPT_LONG,
    OPT_USAGE,
    OPT_SIBLING,
    OPT_WCKEY,
    OPT_ME,
};

static const struct cmd_opt scancel_opts[] = {
    {"account", 'A', required_argument,
     "  -A, --account=account           act only on jobs charging this "
     "account\n"},
    {"batch", 'b', no_argument,
     "  -b, --batch                     signal batch shell for specified "
     "job\n"},
    {"full", 'f', no_argument,
     "  -f, --full                      signal batch shell and all steps for "
     "specified job\n"},
    {"hurry", 'H', no_argument,
     "  -H, --hurry                     avoid burst buffer stage out\n"},
    {"interactive", 'i', no_argument,
     "  -i, --interactive               require response from user for each "
     "job\n"},
    {"me", OPT_ME, no_argument,
     "      --me                        act only on jobs of the current "
     "user\n"},
    {"name", 'n', required_argument,
     "  -n, --name=job_name             act only on jobs with this name\n"},
    {"jobname", 'n', required_argument, NULL},
    {"partition", 'p', required_argument,
     "  -p, --partition=partition       act only on jobs in this partition\n"},
    {"quiet", 'Q', no_argument,
     "  -Q, --quiet                     disable warnings\n"},
    {"qos", 'q', required_argument,
     "  -q, --qos=qos                   act only on jobs with this quality of "
     "service\n"},
    {"reservation", 'R', required_argument,
     "  -R, --reservation=reservation   act only on jobs with this "
     "reservation\n"},
    {"sibling", OPT_SIBLING, required_argument,
     "      --sibling=cluster_name      remove an active sibling job from a "
     "federated job\n"},
    {"signal", 's', required_argument,
     "  -s, --signal=name | integer     signal to send to job, default is "
     "SIGKILL\n"},
    {"state", 't', required_argument,
     "  -t, --state=states              act only on jobs in this state.  "
     "Valid job\n"
     "                                  states are PENDING, RUNNING and "
     "SUSPENDED\n"},
    {"states", 't', required_argument, NULL},
    {"user", 'u', required_argument,
     "  -u, --user=user_name            act only on jobs of this user\n"},
    {"version", 'V', no_argument,
     "  -V, --version                   output version information and "
     "exit\n"},
    {"verbose", 'v', no_argument,
     "  -v, --verbose                   verbosity level\n"},
    {"nodelist", 'w', required_argument,
     "  -w, --nodelist                  act only on jobs on these nodes\n"},
    {"wckey", OPT_WCKEY, required_argument,
     "      --wckey=wckey               act only on jobs with this workload\n"
     "                                  charactization key\n"},
    {"help", OPT_HELP, no_argument,
     "\nHelp options:\n"
     "  --help                          show this help message\n"},
    {"usage", OPT_USAGE, no_argument,
     "  --usage                         display brief usage message\n"},
    CMD_OPT_END,
};

static const char scancel_usage[] =
    "Usage: scancel [-A account] [--batch] [--full] [--interactive] "
    "[-n job_name]\n"
    "               [-p partition] [-Q] [-q qos] [-R reservation] "
    "[-s signal | integer]\n"
    "               [-t PENDING | RUNNING | SUSPENDED] [--usage] "
    "[-u user_name]\n"
    "               [--hurry] [-V] [-v] [-w hosts...] [--wckey=wckey]\n"
    "               [job_id[_array_id][.step_id]]\n";

struct scancel_args {
    const char *prog;
    int signal;        /* 0: cancel */
    const char *user;
    const char *state;
    const char *name;
    const char *partition;
    const char *nodelist;
    const char *account;
    const char *qos;
    bool quiet;
    bool interactive;
    uint32_t *ids;
    size_t nids;
};

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

/* "KILL", "SIGKILL", "9" (case-insensitive).  -1 when unknown. */
static int parse_signal(const char *s)
{
    char *end;
    long n;

    if (isdigit((unsigned char)s[0])) {
        n = strtol(s, &end, 10);
        return (*end || n <= 0 || n >= 65) ? -1 : (int)n;
    }
    if (strncasecmp(s, "SIG", 3) == 0)
        s += 3;
    for (size_t i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
        if (strcasecmp(s, signals[i].name) == 0)
            return signals[i].num;
    }
    return -1;
}

static void parse_opt(struct scancel_args *a, int c, const char *arg)
{
    switch (c) {
    case 'A':
        a->account = arg;
        break;
    case 'i':
        a->interactive = true;
        break;
    case 'n':
        a->name = arg;
        break;
    case 'p':
        a->partition = arg;
        break;
    case 'Q':
        a->quiet = true;
        break;
    case 'q':
        a->qos = arg;
        break;
    case 's':
        if ((a->signal = parse_signal(arg)) < 0) {
            cmd_error(a->prog, "Invalid job signal: %s", arg);
            exit(1);
        }
        break;
    case 't':
        a->state = arg;
        break;
    case 'u':
        a->user = arg;
        break;
    case OPT_ME:
        a->user = names_user(geteuid());
        break;
    case 'w':
        a->nodelist = arg;
        break;
    default:
        break;
    }
}

/* Job ids are plain numbers; array tasks and steps are not modelled. */
static void parse_ids(struct scancel_args *a, int argc, char **argv)
{
    a->ids = xzalloc((size_t)(argc + 1) * sizeof(*a->ids));
    for (int i = optind; i < argc; i++) {
        char *end;
        unsigned long id = strtoul(argv[i], &end, 10);

        if (!isdigit((unsigned char)argv[i][0]) || *end || id == 0) {
            cmd_error(a->prog, "Invalid job id %s", argv[i]);
            exit(1);
        }
        a->ids[a->nids++] = (uint32_t)id;
    }
}

static void parse_args(int argc, char **argv, struct scancel_args *a)
{
    int c;

    while ((c = cmd_getopt(argc, argv, scancel_opts)) != -1) {
        if (c == '?') {
            fprintf(stderr, "Try \"scancel --help\" for more information\n");
            exit(1);
        } else if (c == 'V') {
            cmd_print_version();
            exit(0);
        } else if (c == OPT_HELP) {
            cmd_print_help(stdout,
                           "Usage: scancel [OPTIONS] "
                           "[job_id[_array_id][.step_id]]\n",
                           scancel_opts, NULL);
            exit(0);
        } else if (c == OPT_USAGE) {
            fputs(scancel_usage, stdout);
            exit(0);
        } else {
            parse_opt(a, c, optarg);
        }
    }
    parse_ids(a, argc, argv);
}
