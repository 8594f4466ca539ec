/* SPDX-License-Identifier: Apache-2.0
 *
 * sdiag.c - the controller's statistics (Slurm's sdiag)
 *
 * One stats_info request to droverctld, printed by sdiag_print.c in
 * Slurm's format; -r resets the statistics first (an operator or
 * administrator).  --json prints the answer itself: Drover's extension,
 * which adds each message type's maximum and 50th/99th percentile times
 * (docs/compatibility.md).
 */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/sdiag_print.h"

enum { OPT_USAGE = CMD_OPT_LONG, OPT_JSON };

static const struct cmd_opt opts[] = {
    {"all", 'a', no_argument, "  -a, --all           all statistics\n"},
    {"reset", 'r', no_argument, "  -r, --reset         reset statistics\n"},
    {"cluster", 'M', required_argument,
     "  -M, --cluster       direct the request to a specific cluster\n"},
    {"sort-by-id", 'i', no_argument,
     "  -i, --sort-by-id    sort RPCs by id\n"},
    {"sort-by-time", 't', no_argument,
     "  -t, --sort-by-time  sort RPCs by total run time\n"},
    {"sort-by-time2", 'T', no_argument,
     "  -T, --sort-by-time2 sort RPCs by average run time\n"},
    {"version", 'V', no_argument,
     "  -V, --version       display current version number\n"},
    {"json", OPT_JSON, no_argument, NULL},
    {"help", 'h', no_argument,
     "\nHelp options:\n  --help          show this help message\n"},
    {"usage", OPT_USAGE, no_argument,
     "  --usage         display brief usage message\n"},
    CMD_OPT_END,
};

static const char usage_text[] = "Usage: sdiag [-M cluster] [-aritT]\n";

struct args {
    const char *prog;
    bool reset, json;
    enum sdiag_sort sort;
};

static void parse_args(int argc, char **argv, struct args *a)
{
    int c;

    while ((c = cmd_getopt(argc, argv, opts)) != -1) {
        switch (c) {
        case 'a': break; /* every section is printed anyway */
        case 'r': a->reset = true; break;
        case 'i': a->sort = SDIAG_BY_ID; break;
        case 't': a->sort = SDIAG_BY_TIME; break;
        case 'T': a->sort = SDIAG_BY_AVE; break;
        case OPT_JSON: a->json = true; break;
        case 'M': /* one cluster: it must be this one */
            if (!cmd_clusters_check(a->prog, optarg))
                exit(1);
            break;
        case 'V':
            cmd_print_version();
            exit(0);
        case 'h':
            cmd_print_help(stdout, "Usage: sdiag [OPTIONS]\n", opts, NULL);
            exit(0);
        case OPT_USAGE:
            fputs(usage_text, stdout);
            exit(0);
        default:
            fprintf(stderr, "Try \"sdiag --help\" for more information\n");
            exit(1);
        }
    }
    if (optind < argc) {
        fprintf(stderr, "%s: unrecognized option '%s'\n", a->prog,
                argv[optind]);
        fprintf(stderr, "Try \"sdiag --help\" for more information\n");
        exit(1);
    }
}

int main(int argc, char **argv)
{
    struct args a = {.prog = cmd_prog_name(argv[0])};
    drv_error_t error = {{0}};
    json_t *resp = NULL;

    parse_args(argc, argv, &a);
    if (cmd_rpc(a.prog, "stats_info", json_pack("{s:b}", "reset", a.reset),
                &resp, &error)
        < 0) {
        if (a.reset)
            fprintf(stderr, "slurm_reset_statistics: %s\n", error.text);
        else
            fprintf(stderr, "slurm_get_statistics: %s\n", error.text);
        return 1;
    }
    if (a.reset) {
        printf("Reset scheduling statistics\n");
    } else if (a.json) {
        json_dumpf(resp, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
        putchar('\n');
    } else {
        sdiag_print(stdout, resp, a.sort);
    }
    json_decref(resp);
    return 0;
}
