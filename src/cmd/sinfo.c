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
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cmd/lib/format.h"
#include "cmd/lib/json_out.h"
#include "cmd/lib/jsonget.h"
#include "cmd/lib/opt.h"
#include "cmd/lib/rpc.h"
#include "cmd/lib/sinfo_print.h"
#include "cmd/lib/states.h"
#include "common/hostlist.h"
#include "common/timefmt.h"
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
    bool json; /* --json: nodes and partitions in v0.0.38 shapes */
    const char *cluster; /* -M: this cluster, named before the listing */
    bool all;  /* -a (or -p): hidden partitions too; --hide: not */
    int iterate;
    bool reservations; /* -T */
    struct sinfo_opts opts;
};

static void parse_opt(struct sinfo_args *a, int c, char *arg)
{
    switch (c) {
    case 'a':
        a->all = true;
        break;
    case OPT_HIDE:
        a->all = false;
        break;
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
        a->all = true; /* as Slurm: a named partition is shown */
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
    case 'S':
        a->opts.sort = arg;
        break;
    case 'T':
        a->reservations = true;
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
        } else if (c == OPT_JSON) {
            a->json = true;
        } else if (c == 'M') {
            if (!(a->cluster = cmd_clusters_check(a->prog, optarg)))
                exit(1);
        } else if (c == OPT_YAML) {
            cmd_error(a->prog, "--yaml is not supported by Drover");
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
    if (a->reservations && a->json) {
        cmd_error(a->prog, "--json with --reservation is not supported by "
                           "Drover; use scontrol --json show reservation");
        exit(1);
    }
}

/* sinfo's built-in formats size the node list and partition columns to fit;
 * a user's -o does not.
 */
struct format_choice {
    const char *text;
    bool node_field;
    bool part_field;
};

static struct format_choice choose_format(const struct sinfo_args *a)
{
    const struct sinfo_opts *o = &a->opts;
    const char *env = getenv("SINFO_FORMAT");

    if (a->format)
        return (struct format_choice){a->format, false, false};
    if (o->summarize)
        return (struct format_choice){SINFO_FORMAT_SUMMARIZE, false, true};
    if (o->node_view)
        return (struct format_choice){a->long_output ? SINFO_FORMAT_NODE_LONG
                                                     : SINFO_FORMAT_NODE,
                                      true, true};
    if (o->reasons)
        return (struct format_choice){a->long_output
                                          ? SINFO_FORMAT_REASONS_LONG
                                          : SINFO_FORMAT_REASONS,
                                      false, false};
    if (env)
        return (struct format_choice){env, false, false};
    return (struct format_choice){a->long_output ? SINFO_FORMAT_LONG
                                                 : SINFO_FORMAT_DEFAULT,
                                  false, true};
}

/* Split -t into names and check each against sinfo's state names. */
static int split_states(struct sinfo_args *a, char ***names)
{
    struct node_state idle = {.base = NODE_BASE_IDLE};
    char *save = NULL, *tok;
    bool known;
    size_t n = 0;

    *names = NULL;
    if (!a->states)
        return 0;
    if (strcasecmp(a->states, "all") == 0)
        return 0;
    for (tok = strtok_r(a->states, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        node_state_matches(tok, idle, &known);
        if (!known) {
            cmd_error(a->prog, "Bad state string: \"%s\"", tok);
            cmd_error(a->prog, "valid states: unknown,down,idle,allocated,?,"
                      "mixed,future,drain,drained,draining,no_respond,"
                      "reserved,perfctrs,cloud,completing,powering_down,"
                      "powered_down,power_down,powering_up,fail,maint,reboot,"
                      "reboot^,unknown");
            exit(1);
        }
        *names = realloc(*names, (n + 1) * sizeof(**names));
        if (!*names)
            abort();
        (*names)[n++] = tok;
    }
    a->opts.states = (const char *const *)*names;
    a->opts.nstates = n;
    return 0;
}

static bool name_in_list(const char *list, const char *name)
{
    char *copy = xstrdup(list), *save = NULL, *tok;
    bool found = false;

    for (tok = strtok_r(copy, ",", &save); tok && !found;
         tok = strtok_r(NULL, ",", &save))
        found = strcmp(tok, name) == 0;
    free(copy);
    return found;
}

/* -p: keep the named partitions, in the controller's order. */
static json_t *filter_partitions(const struct sinfo_args *a, json_t *parts)
{
    json_t *out = json_array(), *p;
    size_t i;

    json_array_foreach(parts, i, p) {
        if (!a->partitions || name_in_list(a->partitions, jstr_or(p, "name", "")))
            json_array_append(out, p);
    }
    return out;
}

/* -n: keep the named nodes. */
static json_t *filter_nodes(const struct sinfo_args *a, json_t *nodes)
{
    hostlist_t *hl;
    json_t *out, *n;
    size_t i;

    if (!a->nodes)
        return json_incref(nodes);
    if (!(hl = hostlist_decode(a->nodes, NULL))) {
        cmd_error(a->prog, "'%s' invalid entry for --nodes", a->nodes);
        exit(1);
    }
    out = json_array();
    json_array_foreach(nodes, i, n) {
        if (hostlist_find(hl, jstr_or(n, "name", "")) >= 0)
            json_array_append(out, n);
    }
    hostlist_destroy(hl);
    return out;
}

static int load(const char *prog, const char *type, const char *key,
                json_t *body, json_t **resp, json_t **array)
{
    drv_error_t error = {{0}};

    if (cmd_rpc(prog, type, body, resp, &error) < 0) {
        fprintf(stderr, "slurm_load_%s error: %s\n",
                strcmp(type, "node_info") == 0 ? "node" : "partitions",
                error.text);
        return -1;
    }
    *array = json_object_get(*resp, key);
    if (!json_is_array(*array)) {
        json_object_set_new(*resp, key, json_array());
        *array = json_object_get(*resp, key);
    }
    return 0;
}

#define RESV_ROW "%-*s  %8s  %19s  %19s  %11s  %s\n"

/* sinfo -T: the reservations in Slurm's columns, the name column as wide
 * as the longest name (at least 9; Slurm measures it only for a header).
 * With none, Slurm's sinfo prints a sentence instead of the table, on
 * stdout, -h or not, and exits 0. */
static int show_reservations(const struct sinfo_args *a)
{
    json_t *resp = NULL, *list, *r;
    drv_error_t error = {{0}};
    char t1[32], t2[32], d[32];
    int width = 9;
    size_t i;

    if (cmd_rpc(a->prog, "resv_info", json_object(), &resp, &error) < 0) {
        fprintf(stderr, "slurm_load_reservations: %s\n", error.text);
        return 1;
    }
    list = json_object_get(resp, "reservations");
    if (a->cluster)
        printf("CLUSTER: %s\n", a->cluster);
    if (!json_array_size(list)) {
        printf("No reservations in the system\n");
        json_decref(resp);
        return 0;
    }
    if (!a->noheader)
        json_array_foreach(list, i, r) {
            int w = (int)strlen(jstr_or(r, "name", ""));
            width = w > width ? w : width;
        }
    if (!a->noheader)
        printf(RESV_ROW, width, "RESV_NAME", "STATE", "START_TIME",
               "END_TIME", "DURATION", "NODELIST");
    json_array_foreach(list, i, r) {
        int64_t start = jint(r, "start_time", 0), end = jint(r, "end_time", 0);

        printf(RESV_ROW, width, jstr_or(r, "name", ""),
               jbool(r, "active", false) ? "ACTIVE" : "INACTIVE",
               timefmt_stamp(start, 0, t1, sizeof(t1)),
               timefmt_stamp(end, 0, t2, sizeof(t2)),
               timefmt_duration(end - start, 1, d, sizeof(d)),
               jstr_or(r, "nodes", ""));
    }
    json_decref(resp);
    return 0;
}

/* sinfo --json: the filtered nodes and partitions. */
static void show_json(json_t *parts, json_t *nodes)
{
    size_t np = json_array_size(parts), nn = json_array_size(nodes);
    const json_t **recs = calloc(np + nn + 1, sizeof(*recs));
    json_t *doc = json_out_doc();

    if (!recs)
        abort();
    for (size_t k = 0; k < nn; k++)
        recs[k] = json_array_get(nodes, k);
    json_out_add(doc, "nodes", recs, nn, json_out_node);
    for (size_t k = 0; k < np; k++)
        recs[k] = json_array_get(parts, k);
    json_out_add(doc, "partitions", recs, np, json_out_partition);
    json_out_dump(stdout, doc);
    free(recs);
}

static int show(struct sinfo_args *a, struct format_choice fc)
{
    json_t *presp = NULL, *nresp = NULL, *parts, *nodes, *fparts, *fnodes;
    struct sinfo_row *rows;
    struct fmt_spec *spec;
    size_t nrows;

    if (load(a->prog, "partition_info", "partitions",
             json_pack("{s:b}", "show_all", a->all), &presp, &parts) < 0
        || load(a->prog, "node_info", "nodes", json_object(), &nresp, &nodes)
               < 0) {
        json_decref(presp);
        return 1;
    }
    spec = a->format_long ? fmt_parse_long(a->format_long, sinfo_fields, 20)
                          : fmt_parse(fc.text, sinfo_fields);
    if (spec->bad)
        cmd_error(a->prog, "Invalid node format specification: %c",
                  spec->bad);
    if (spec->bad_name)
        /* "job", as Slurm's sinfo -O says. */
        cmd_error(a->prog, "Invalid job format specification: %s",
                  spec->bad_name);
    fparts = filter_partitions(a, parts);
    fnodes = filter_nodes(a, nodes);
    if (a->json) {
        show_json(fparts, fnodes);
    } else {
        rows = sinfo_rows_build(spec, fparts, fnodes, &a->opts, &nrows);
        if (!a->format_long)
            sinfo_fit_widths(spec, rows, nrows, fc.node_field, fc.part_field);
        if (a->long_output || a->iterate)
            cmd_print_date((time_t)jint(nresp, "now", (int64_t)time(NULL)));
        if (a->cluster) /* as Slurm's with --clusters */
            printf("CLUSTER: %s\n", a->cluster);
        sinfo_print(stdout, spec, rows, nrows, a->noheader);
        fflush(stdout);
        sinfo_rows_destroy(rows, nrows);
    }
    fmt_spec_destroy(spec);
    json_decref(fparts);
    json_decref(fnodes);
    json_decref(presp);
    json_decref(nresp);
    return 0;
}

int main(int argc, char **argv)
{
    struct sinfo_args a = {.prog = cmd_prog_name(argv[0])};
    struct format_choice fc;
    char **states = NULL;
    int rc;

    a.all = getenv("SINFO_ALL") != NULL;
    parse_args(argc, argv, &a);
    if (!a.partitions && (a.partitions = getenv("SINFO_PARTITION")))
        a.all = true;
    split_states(&a, &states);
    fc = choose_format(&a);
    rc = a.reservations ? show_reservations(&a) : show(&a, fc);
    while (a.iterate && rc == 0) {
        printf("\n");
        sleep((unsigned)a.iterate);
        rc = a.reservations ? show_reservations(&a) : show(&a, fc);
    }
    free(states);
    return rc;
}
