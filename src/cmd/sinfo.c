/* SPDX-License-Identifier: Apache-2.0
 *
 * sinfo.c - view partitions and nodes (Slurm's sinfo)
 *
 * Loads the partition and node tables from the controller, groups nodes
 * into rows by what the chosen format shows (lib/sinfo_print.c) and prints
 * them in sinfo's order.
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/lib/format.h"
#include "cmd/lib/jsonget.h"
#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/sinfo_print.h"
#include "cmd/lib/states.h"
#include "common/hostlist.h"
#include "common/xalloc.h"

enum {
    OPT_HELP = CMD_OPT_LONG,
    OPT_USAGE,
    OPT_HIDE,
    OPT_LOCAL,
    OPT_NOCONVERT,
    OPT_FEDERATION,
    OPT_JSON,
    OPT_YAML,
};

#define TAB "\t\t\t     "

static const struct cmd_opt sinfo_opts[] = {
    {"all", 'a', no_argument,
     "  -a, --all                  show all partitions (including hidden and "
     "those\n" TAB "not accessible)\n"},
    {"dead", 'd', no_argument,
     "  -d, --dead                 show only non-responding nodes\n"},
    {"exact", 'e', no_argument,
     "  -e, --exact                group nodes only on exact match of "
     "configuration\n"},
    {"federation", OPT_FEDERATION, no_argument,
     "      --federation           Report federated information if a member "
     "of one\n"},
    {"noheader", 'h', no_argument,
     "  -h, --noheader             no headers on output\n"},
    {"hide", OPT_HIDE, no_argument,
     "  --hide                     do not show hidden or non-accessible "
     "partitions\n"},
    {"iterate", 'i', required_argument,
     "  -i, --iterate=seconds      specify an iteration period\n"},
    {"json", OPT_JSON, no_argument,
     "      --json                 Produce JSON output\n"},
    {"local", OPT_LOCAL, no_argument,
     "      --local                show only local cluster in a federation.\n"
     "                             Overrides --federation.\n"},
    {"long", 'l', no_argument,
     "  -l, --long                 long output - displays more information\n"},
    {"clusters", 'M', required_argument,
     "  -M, --clusters=names       clusters to issue commands to. Implies "
     "--local.\n"
     "                             NOTE: SlurmDBD must be up.\n"},
    {"cluster", 'M', required_argument, NULL},
    {"nodes", 'n', required_argument,
     "  -n, --nodes=NODES          report on specific node(s)\n"},
    {"noconvert", OPT_NOCONVERT, no_argument,
     "  --noconvert                don't convert units from their original "
     "type\n" TAB "(e.g. 2048M won't be converted to 2G).\n"},
    {"Node", 'N', no_argument,
     "  -N, --Node                 Node-centric format\n"},
    {"format", 'o', required_argument,
     "  -o, --format=format        format specification\n"},
    {"Format", 'O', required_argument,
     "  -O, --Format=format        long format specification\n"},
    {"partition", 'p', required_argument,
     "  -p, --partition=PARTITION  report on specific partition\n"},
    {"responding", 'r', no_argument,
     "  -r, --responding           report only responding nodes\n"},
    {"list-reasons", 'R', no_argument,
     "  -R, --list-reasons         list reason nodes are down or drained\n"},
    {"summarize", 's', no_argument,
     "  -s, --summarize            report state summary only\n"},
    {"sort", 'S', required_argument,
     "  -S, --sort=fields          comma separated list of fields to sort on\n"},
    {"states", 't', required_argument,
     "  -t, --states=node_state    specify the what states of nodes to view\n"},
    {"reservation", 'T', no_argument,
     "  -T, --reservation          show only reservation information\n"},
    {"verbose", 'v', no_argument,
     "  -v, --verbose              verbosity level\n"},
    {"version", 'V', no_argument,
     "  -V, --version              output version information and exit\n"},
    {"yaml", OPT_YAML, no_argument,
     "      --yaml                 Produce YAML output\n"},
    {"help", OPT_HELP, no_argument,
     "\nHelp options:\n"
     "  --help                     show this help message\n"},
    {"usage", OPT_USAGE, no_argument,
     "  --usage                    display brief usage message\n"},
    CMD_OPT_END,
};

static const char sinfo_usage[] =
    "Usage: sinfo [-abdelNRrsTv] [-i seconds] [-t states] [-p partition] "
    "[-n nodes]\n"
    "             [-S fields] [-o format] [-O Format] [--federation] "
    "[--local]\n";

struct sinfo_args {
    const char *prog;
    const char *format;
    const char *format_long;
    char *partitions; /* -p, comma list */
    char *nodes;      /* -n, hostlist */
    char *states;     /* -t, comma list */
    bool long_output;
    bool noheader;
    int iterate;
    struct sinfo_opts opts;
};

static void parse_opt(struct sinfo_args *a, int c, char *arg)
{
    switch (c) {
    case 'd':
        a->opts.dead = true;
        break;
    case 'h':
        a->noheader = true;
        break;
    case 'i':
        if ((a->iterate = atoi(arg)) <= 0) {
            cmd_error(a->prog, "Error: invalid entry for --iterate=%s", arg);
            exit(1);
        }
        break;
    case 'l':
        a->long_output = true;
        break;
    case 'n':
        a->nodes = arg;
        break;
    case 'N':
        a->opts.node_view = true;
        break;
    case 'o':
        a->format = arg;
        break;
    case 'O':
        a->format_long = arg;
        break;
    case 'p':
        a->partitions = arg;
        break;
    case 'r':
        a->opts.responding = true;
        break;
    case 'R':
        a->opts.reasons = true;
        break;
    case 's':
        a->opts.summarize = true;
        break;
    case 't':
        a->states = arg;
        break;
    default:
        break;
    }
}

static void parse_args(int argc, char **argv, struct sinfo_args *a)
{
    int c;

    while ((c = cmd_getopt(argc, argv, sinfo_opts)) != -1) {
        if (c == '?') {
            fprintf(stderr, "Try \"sinfo --help\" for more information\n");
            exit(1);
        } else if (c == 'V') {
            cmd_print_version();
            exit(0);
        } else if (c == OPT_HELP) {
            cmd_print_help(stdout, "Usage: sinfo [OPTIONS]\n", sinfo_opts,
                           NULL);
            exit(0);
        } else if (c == OPT_USAGE) {
            fputs(sinfo_usage, stdout);
            exit(0);
        } else if (c == OPT_JSON || c == OPT_YAML || c == 'T' || c == 'M') {
            cmd_error(a->prog, "%s is not supported by Drover",
                      c == OPT_JSON   ? "--json"
                      : c == OPT_YAML ? "--yaml"
                      : c == 'T'      ? "--reservation"
                                      : "--clusters");
            exit(1);
        } else {
            parse_opt(a, c, optarg);
        }
    }
    if (optind < argc) {
        cmd_error(a->prog, "Unrecognized option: %s", argv[optind]);
        fputs(sinfo_usage, stdout);
        exit(1);
    }
}
